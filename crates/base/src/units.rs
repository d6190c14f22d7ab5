//! Parsing and printing of human sizes (`4KiB`, `64GiB`, `1M`) and counts.

use serde::{Deserialize, Deserializer, Serialize, Serializer};
use std::fmt;
use std::str::FromStr;

/// A size in bytes that parses from and prints to human units.
///
/// Binary suffixes (`KiB`, `MiB`, `GiB`, `TiB`) and their short forms (`K`, `M`, `G`, `T`,
/// `KB`, `MB`, `GB`, `TB`) are all powers of 1024, as storage tools usually mean them;
/// a plain number is bytes.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash, Default)]
pub struct Size(pub u64);

impl Size {
    /// Bytes as a plain number.
    pub fn bytes(self) -> u64 {
        self.0
    }
}

/// Error from parsing a size or count.
#[derive(Debug, thiserror::Error, PartialEq)]
#[error(
    "invalid size '{input}': expected a number with an optional unit such as 4KiB, 512B, 64GiB"
)]
pub struct SizeError {
    /// The text that failed to parse.
    pub input: String,
}

fn unit_multiplier(unit: &str) -> Option<u64> {
    Some(match unit.to_ascii_lowercase().as_str() {
        "" | "b" => 1,
        "k" | "kb" | "kib" => 1 << 10,
        "m" | "mb" | "mib" => 1 << 20,
        "g" | "gb" | "gib" => 1 << 30,
        "t" | "tb" | "tib" => 1 << 40,
        "p" | "pb" | "pib" => 1 << 50,
        _ => return None,
    })
}

impl FromStr for Size {
    type Err = SizeError;
    fn from_str(s: &str) -> Result<Self, Self::Err> {
        let err = || SizeError {
            input: s.to_string(),
        };
        // No digit separators: `1_000` is no documented syntax, and stripping `_` read
        // `1_` as 1 (issue 30).
        let t = s.trim();
        let split = t
            .find(|c: char| !(c.is_ascii_digit() || c == '.'))
            .unwrap_or(t.len());
        let (num, unit) = t.split_at(split);
        if num.is_empty() {
            return Err(err());
        }
        let mult = unit_multiplier(unit.trim()).ok_or_else(err)?;
        if let Ok(n) = num.parse::<u64>() {
            return n.checked_mul(mult).map(Size).ok_or_else(err);
        }
        let f: f64 = num.parse().map_err(|_| err())?;
        let v = f * mult as f64;
        if !v.is_finite() || v < 0.0 || v > u64::MAX as f64 || v.fract() != 0.0 {
            return Err(err());
        }
        Ok(Size(v as u64))
    }
}

impl fmt::Display for Size {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        const UNITS: [(&str, u64); 5] = [
            ("PiB", 1 << 50),
            ("TiB", 1 << 40),
            ("GiB", 1 << 30),
            ("MiB", 1 << 20),
            ("KiB", 1 << 10),
        ];
        for (name, m) in UNITS {
            if self.0 >= m && self.0.is_multiple_of(m) {
                return write!(f, "{}{}", self.0 / m, name);
            }
        }
        write!(f, "{}B", self.0)
    }
}

impl Serialize for Size {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        s.serialize_str(&self.to_string())
    }
}

impl<'de> Deserialize<'de> for Size {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        use serde::de::{self, Unexpected};
        /// A visitor rather than an untagged enum, so a wrong type is reported with the
        /// value and what was expected ("invalid type: boolean `true`, expected a size
        /// such as …") instead of "did not match any variant".
        struct V;
        impl de::Visitor<'_> for V {
            type Value = Size;
            fn expecting(&self, f: &mut std::fmt::Formatter) -> std::fmt::Result {
                f.write_str("a size such as \"64GiB\", \"4KiB\" or a whole number of bytes")
            }
            fn visit_u64<E: de::Error>(self, n: u64) -> Result<Size, E> {
                Ok(Size(n))
            }
            fn visit_i64<E: de::Error>(self, n: i64) -> Result<Size, E> {
                u64::try_from(n)
                    .map(Size)
                    .map_err(|_| E::invalid_value(Unexpected::Signed(n), &self))
            }
            fn visit_str<E: de::Error>(self, s: &str) -> Result<Size, E> {
                s.parse().map_err(E::custom)
            }
        }
        d.deserialize_any(V)
    }
}

/// Error from parsing a count (`--requests`, `1M`): the text given and what a count
/// must be.
#[derive(Clone, Debug, thiserror::Error, PartialEq)]
#[error("invalid count '{input}': expected {expected}")]
pub struct CountError {
    /// The text that failed to parse.
    pub input: String,
    /// What is accepted, e.g. "a whole, non-negative number".
    pub expected: String,
}

/// Parses a count such as `1000`, `1M`, `10k`, `2.5M` (decimal multipliers).
pub fn parse_count(s: &str) -> Result<u64, CountError> {
    let err = |expected: String| CountError {
        input: s.to_string(),
        expected,
    };
    // No digit separators (`1_000`): not a documented syntax, and `1_` must not be 1.
    let t = s.trim();
    let (num, mult) = match t.chars().last() {
        Some('k' | 'K') => (&t[..t.len() - 1], 1_000u64),
        Some('m' | 'M') => (&t[..t.len() - 1], 1_000_000u64),
        Some('g' | 'G') => (&t[..t.len() - 1], 1_000_000_000u64),
        _ => (t, 1u64),
    };
    // Whole numbers in integers: through f64 a count above 2^53 would lose digits and
    // 2^64 itself would saturate to u64::MAX instead of being refused.
    if !num.is_empty() && num.bytes().all(|b| b.is_ascii_digit()) {
        return num
            .parse::<u64>()
            .ok()
            .and_then(|v| v.checked_mul(mult))
            .ok_or_else(|| err(format!("at most {} (2^64 - 1)", u64::MAX)));
    }
    let mult = mult as f64;
    let v: f64 = num
        .parse()
        .map_err(|_| err("a number such as 1000, 10k or 1M".to_string()))?;
    let r = v * mult;
    // u64::MAX as f64 rounds up to 2^64, which itself does not fit.
    if !r.is_finite() || r < 0.0 || r.fract() != 0.0 || r >= u64::MAX as f64 {
        return Err(err("a whole, non-negative number".to_string()));
    }
    Ok(r as u64)
}

/// Serde for a `u64` config value in TOML, whose integers are 64-bit signed: values
/// above `i64::MAX` (valid seeds, counts) travel as a decimal string, so
/// `--seed 18446744073709551615` is that seed rather than a refusal of "-1".
pub mod wide_u64 {
    use serde::{Deserializer, Serializer, de};
    use std::fmt;

    /// Accepts a non-negative integer or a decimal string; says what it expected.
    struct Wide;

    impl de::Visitor<'_> for Wide {
        type Value = u64;

        fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
            write!(f, "a whole number from 0 to {}", u64::MAX)
        }

        fn visit_u64<E: de::Error>(self, v: u64) -> Result<u64, E> {
            Ok(v)
        }

        fn visit_i64<E: de::Error>(self, v: i64) -> Result<u64, E> {
            u64::try_from(v).map_err(|_| E::invalid_value(de::Unexpected::Signed(v), &self))
        }

        fn visit_str<E: de::Error>(self, v: &str) -> Result<u64, E> {
            v.trim()
                .parse::<u64>()
                .map_err(|_| E::invalid_value(de::Unexpected::Str(v), &self))
        }
    }

    /// Writes `v` as an integer when TOML can hold it, else as a decimal string.
    pub fn serialize<S: Serializer>(v: &u64, s: S) -> Result<S::Ok, S::Error> {
        match i64::try_from(*v) {
            Ok(i) => s.serialize_i64(i),
            Err(_) => s.serialize_str(&v.to_string()),
        }
    }

    /// Reads an integer or a decimal string.
    pub fn deserialize<'de, D: Deserializer<'de>>(d: D) -> Result<u64, D::Error> {
        d.deserialize_any(Wide)
    }

    /// The same for `Option<u64>`.
    pub mod option {
        use serde::{Deserialize, Deserializer, Serializer};

        /// Writes `Some(v)` as [`super::serialize`] does.
        pub fn serialize<S: Serializer>(v: &Option<u64>, s: S) -> Result<S::Ok, S::Error> {
            match v {
                Some(v) => super::serialize(v, s),
                None => s.serialize_none(),
            }
        }

        /// Reads an integer or a decimal string.
        pub fn deserialize<'de, D: Deserializer<'de>>(d: D) -> Result<Option<u64>, D::Error> {
            #[derive(Deserialize)]
            struct W(#[serde(with = "super")] u64);
            Ok(Option::<W>::deserialize(d)?.map(|w| w.0))
        }
    }

    /// The TOML value for `v` (an integer, or a string above `i64::MAX`).
    pub fn value(v: u64) -> toml::Value {
        match i64::try_from(v) {
            Ok(i) => toml::Value::Integer(i),
            Err(_) => toml::Value::String(v.to_string()),
        }
    }
}

/// `bytes` to three significant digits in binary units ("25.7GiB"), for estimates.
pub fn approx(bytes: u64) -> String {
    let units = ["B", "KiB", "MiB", "GiB", "TiB", "PiB"];
    let mut v = bytes as f64;
    let mut u = 0;
    while v >= 1024.0 && u + 1 < units.len() {
        v /= 1024.0;
        u += 1;
    }
    if u == 0 || v >= 100.0 {
        format!("{v:.0}{}", units[u])
    } else if v >= 10.0 {
        format!("{v:.1}{}", units[u])
    } else {
        format!("{v:.2}{}", units[u])
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    #[test]
    fn parses_common_sizes() {
        assert_eq!("4KiB".parse::<Size>().unwrap().0, 4096);
        assert_eq!("64GiB".parse::<Size>().unwrap().0, 64 << 30);
        assert_eq!("512".parse::<Size>().unwrap().0, 512);
        assert_eq!("1.5KiB".parse::<Size>().unwrap().0, 1536);
        assert_eq!("2m".parse::<Size>().unwrap().0, 2 << 20);
        assert!("abc".parse::<Size>().is_err());
        assert!("4XB".parse::<Size>().is_err());
        assert!("".parse::<Size>().is_err());
        assert_eq!(parse_count("1M").unwrap(), 1_000_000);
        assert_eq!(parse_count("10k").unwrap(), 10_000);
        assert!(parse_count("x").is_err());
        // Issue 30: 2^64 was read as u64::MAX (and shown as "-1"); big counts lost digits.
        assert!(parse_count("18446744073709551616").is_err());
        assert_eq!(parse_count("18446744073709551615").unwrap(), u64::MAX);
        assert_eq!(
            parse_count("9007199254740993").unwrap(),
            9_007_199_254_740_993
        );
        assert!(parse_count("18446744073709552k").is_err());
        // Issue 30: underscores were stripped, so `1_` read as 1; no digit separators.
        for bad in ["1_", "1_000", "_1", "1_k", "4_KiB"] {
            assert!(parse_count(bad).is_err(), "{bad}");
            assert!(bad.parse::<Size>().is_err(), "{bad}");
        }
    }

    /// A refused count is a typed error that names the text and what a count must be;
    /// its message is the one the CLI printed when the error was a string.
    #[test]
    fn a_refused_count_names_the_text_and_the_expectation() {
        let e = parse_count("x").unwrap_err();
        assert_eq!(
            e,
            CountError {
                input: "x".into(),
                expected: "a number such as 1000, 10k or 1M".into(),
            }
        );
        assert_eq!(
            e.to_string(),
            "invalid count 'x': expected a number such as 1000, 10k or 1M"
        );
        assert_eq!(
            parse_count("1.5").unwrap_err().to_string(),
            "invalid count '1.5': expected a whole, non-negative number"
        );
        assert_eq!(
            parse_count("18446744073709551616").unwrap_err().to_string(),
            "invalid count '18446744073709551616': expected at most 18446744073709551615 (2^64 - 1)"
        );
    }

    proptest! {
        #[test]
        fn display_round_trips(n in 0u64..(1u64 << 52)) {
            let s = Size(n).to_string();
            prop_assert_eq!(s.parse::<Size>().unwrap(), Size(n));
        }
        #[test]
        fn never_panics(s in ".{0,12}") {
            let _ = s.parse::<Size>();
            let _ = parse_count(&s);
        }
    }
}
