//! Number formatting for people: thousands separators, durations with a fitting unit,
//! binary byte sizes, percentages and compact SI axis labels.
//!
//! Every function is a pure function of its argument, so renderings built on them are
//! deterministic. Non-finite inputs print as `n/a` rather than `NaN`/`inf`, because a
//! ratio over an empty phase (0/0) is "not applicable", not a number the user should read.

/// What a non-finite value prints as.
pub const NOT_AVAILABLE: &str = "n/a";

/// `1234567` → `1,234,567`.
pub fn group_thousands(n: u64) -> String {
    let digits = n.to_string();
    let mut out = String::with_capacity(digits.len() + digits.len() / 3);
    for (i, c) in digits.chars().enumerate() {
        if i > 0 && (digits.len() - i).is_multiple_of(3) {
            out.push(',');
        }
        out.push(c);
    }
    out
}

/// Three significant digits for a non-negative magnitude below 1000: `1.23`, `12.3`, `123`.
fn three_significant(v: f64) -> String {
    let a = v.abs();
    // Thresholds sit at the rounding boundaries so 9.996 becomes "10.0", not "10.00".
    if a < 9.995 {
        format!("{v:.2}")
    } else if a < 99.95 {
        format!("{v:.1}")
    } else {
        format!("{v:.0}")
    }
}

/// A rate or other real quantity: three significant digits below 1000, a grouped integer
/// above (`0.512`, `45.6`, `12,346`).
pub fn fmt_number(v: f64) -> String {
    if !v.is_finite() {
        return NOT_AVAILABLE.to_string();
    }
    if v.abs() < 999.5 {
        three_significant(v)
    } else {
        let rounded = v.abs().round();
        let sign = if v < 0.0 { "-" } else { "" };
        // Values beyond u64 are not meaningful rates; saturate rather than wrap.
        format!(
            "{sign}{}",
            group_thousands(rounded.min(u64::MAX as f64) as u64)
        )
    }
}

/// A duration given in nanoseconds, in the largest unit that keeps it at or above 1:
/// `850 ns`, `12.3 µs`, `4.56 ms`, `1.20 s`, `2.5 min`, `1.25 h`.
pub fn fmt_duration_ns(ns: f64) -> String {
    if !ns.is_finite() {
        return NOT_AVAILABLE.to_string();
    }
    let a = ns.abs();
    // Each unit is used while the rounded value stays below 1000, so 999.7 µs prints as
    // "1.00 ms" instead of "1000 µs".
    const UNITS: [(&str, f64); 3] = [("ns", 1.0), ("µs", 1e3), ("ms", 1e6)];
    for (name, scale) in UNITS {
        if a / scale < 999.5 {
            return if scale == 1.0 {
                format!("{ns:.0} ns")
            } else {
                format!("{} {name}", three_significant(ns / scale))
            };
        }
    }
    let s = ns / 1e9;
    if s.abs() < 59.95 {
        format!("{} s", three_significant(s))
    } else if s.abs() < 3600.0 {
        format!("{:.1} min", s / 60.0)
    } else {
        format!("{:.2} h", s / 3600.0)
    }
}

/// A duration given in microseconds (the unit of the elapsed-time formula).
pub fn fmt_duration_us(us: f64) -> String {
    fmt_duration_ns(us * 1e3)
}

/// Bytes in binary units: `512 B`, `4.00 KiB`, `12.3 MiB`, `1.50 GiB`.
pub fn fmt_bytes(bytes: u64) -> String {
    const UNITS: [&str; 5] = ["KiB", "MiB", "GiB", "TiB", "PiB"];
    if bytes < 1024 {
        return format!("{bytes} B");
    }
    let mut v = bytes as f64 / 1024.0;
    for (i, unit) in UNITS.iter().enumerate() {
        if v < 999.5 || i == UNITS.len() - 1 {
            return format!("{} {unit}", three_significant(v));
        }
        v /= 1024.0;
    }
    unreachable!("the loop returns on its last unit")
}

/// A fraction in 0..=1 as a percentage with one decimal: `0.1234` → `12.3 %`.
pub fn fmt_percent(share: f64) -> String {
    if !share.is_finite() {
        return NOT_AVAILABLE.to_string();
    }
    format!("{:.1} %", share * 100.0)
}

/// A dimensionless ratio such as write amplification, three decimals: `1.234`.
pub fn fmt_ratio(v: f64) -> String {
    if !v.is_finite() {
        return NOT_AVAILABLE.to_string();
    }
    format!("{v:.3}")
}

/// Compact SI form for axis ticks: `0.25`, `10`, `1.5k`, `2M`, `3.2G`.
///
/// Trailing zeros are dropped so ticks stay short; up to three decimals are kept in the
/// chosen unit, which distinguishes neighbouring "nice" tick values.
pub fn fmt_si(v: f64) -> String {
    if !v.is_finite() {
        return NOT_AVAILABLE.to_string();
    }
    let a = v.abs();
    let (scaled, suffix) = if a >= 1e12 {
        (v / 1e12, "T")
    } else if a >= 1e9 {
        (v / 1e9, "G")
    } else if a >= 1e6 {
        (v / 1e6, "M")
    } else if a >= 1e3 {
        (v / 1e3, "k")
    } else {
        (v, "")
    };
    let mut s = format!("{scaled:.3}");
    if s.contains('.') {
        while s.ends_with('0') {
            s.pop();
        }
        if s.ends_with('.') {
            s.pop();
        }
    }
    if s == "-0" {
        s = "0".to_string();
    }
    format!("{s}{suffix}")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn thousands() {
        assert_eq!(group_thousands(0), "0");
        assert_eq!(group_thousands(999), "999");
        assert_eq!(group_thousands(1000), "1,000");
        assert_eq!(group_thousands(1234567), "1,234,567");
        assert_eq!(group_thousands(u64::MAX), "18,446,744,073,709,551,615");
    }

    #[test]
    fn numbers() {
        assert_eq!(fmt_number(0.5123), "0.51");
        assert_eq!(fmt_number(45.61), "45.6");
        assert_eq!(fmt_number(999.4), "999");
        assert_eq!(fmt_number(999.6), "1,000");
        assert_eq!(fmt_number(12345.6), "12,346");
        assert_eq!(fmt_number(f64::NAN), "n/a");
    }

    #[test]
    fn durations() {
        assert_eq!(fmt_duration_ns(850.0), "850 ns");
        assert_eq!(fmt_duration_ns(12_340.0), "12.3 µs");
        assert_eq!(fmt_duration_ns(999_700.0), "1.00 ms");
        assert_eq!(fmt_duration_ns(4_560_000.0), "4.56 ms");
        assert_eq!(fmt_duration_ns(1.2e9), "1.20 s");
        assert_eq!(fmt_duration_ns(150e9), "2.5 min");
        assert_eq!(fmt_duration_ns(4500e9), "1.25 h");
        assert_eq!(fmt_duration_us(250.0), "250 µs");
        assert_eq!(fmt_duration_ns(f64::INFINITY), "n/a");
    }

    #[test]
    fn bytes() {
        assert_eq!(fmt_bytes(512), "512 B");
        assert_eq!(fmt_bytes(4096), "4.00 KiB");
        assert_eq!(fmt_bytes(12_900_000), "12.3 MiB");
        assert_eq!(fmt_bytes(1 << 30), "1.00 GiB");
    }

    #[test]
    fn si() {
        assert_eq!(fmt_si(0.25), "0.25");
        assert_eq!(fmt_si(10.0), "10");
        assert_eq!(fmt_si(1500.0), "1.5k");
        assert_eq!(fmt_si(2e6), "2M");
        assert_eq!(fmt_si(-0.0001), "0");
    }
}
