//! Byte-level helpers shared by the format parsers: field splitting and number parsing
//! without allocation. Everything here works on `&[u8]` because traces are ASCII and the
//! readers must run at millions of lines per second; UTF-8 validation would be wasted work.

/// Bytes per sector in every sector-based trace format.
pub(crate) const SECTOR: u64 = 512;

/// Longest accepted line. A file without newlines must not make the reader buffer the whole
/// file, so a longer line is reported as malformed instead.
pub(crate) const MAX_LINE: usize = 64 * 1024;

/// Powers of ten used to scale decimal fractions (`ms` → `ns` needs 10^6, `s` → `ns` 10^9).
pub(crate) const POW10: [u64; 10] = [
    1,
    10,
    100,
    1_000,
    10_000,
    100_000,
    1_000_000,
    10_000_000,
    100_000_000,
    1_000_000_000,
];

/// Space or tab: the separators of the whitespace formats.
#[inline]
pub(crate) fn is_blank(b: u8) -> bool {
    b == b' ' || b == b'\t'
}

/// Strips leading and trailing spaces and tabs.
#[inline]
pub(crate) fn trim(mut s: &[u8]) -> &[u8] {
    while let [first, rest @ ..] = s {
        if !is_blank(*first) {
            break;
        }
        s = rest;
    }
    while let [rest @ .., last] = s {
        if !is_blank(*last) {
            break;
        }
        s = rest;
    }
    s
}

/// Splits `line` on runs of spaces/tabs into exactly `N` fields.
///
/// On a different field count returns `Err(count)` so the error can say how many fields
/// the line had.
#[inline]
pub(crate) fn split_ws<const N: usize>(line: &[u8]) -> Result<[&[u8]; N], usize> {
    let mut out: [&[u8]; N] = [&[]; N];
    let mut n = 0;
    let mut i = 0;
    let len = line.len();
    loop {
        while i < len && is_blank(line[i]) {
            i += 1;
        }
        if i == len {
            break;
        }
        let start = i;
        while i < len && !is_blank(line[i]) {
            i += 1;
        }
        if n < N {
            out[n] = &line[start..i];
        }
        n += 1;
    }
    if n == N { Ok(out) } else { Err(n) }
}

/// Splits `line` on the single byte `delim` into exactly `N` fields, each trimmed of
/// surrounding blanks (CSV exports often pad with spaces).
#[inline]
pub(crate) fn split_delim<const N: usize>(line: &[u8], delim: u8) -> Result<[&[u8]; N], usize> {
    let mut out: [&[u8]; N] = [&[]; N];
    let mut n = 0;
    for field in line.split(|&b| b == delim) {
        if n < N {
            out[n] = trim(field);
        }
        n += 1;
    }
    if n == N { Ok(out) } else { Err(n) }
}

/// A CSV header line: its first non-blank byte is a letter (data lines start with a number).
#[inline]
pub(crate) fn is_header(line: &[u8]) -> bool {
    trim(line).first().is_some_and(u8::is_ascii_alphabetic)
}

/// Fields of a line separated by runs of spaces/tabs.
pub(crate) struct WsFields<'a> {
    line: &'a [u8],
    pos: usize,
}

impl<'a> WsFields<'a> {
    /// The fields of `line`.
    #[inline]
    pub(crate) fn new(line: &'a [u8]) -> Self {
        WsFields { line, pos: 0 }
    }
}

impl<'a> Iterator for WsFields<'a> {
    type Item = &'a [u8];

    #[inline]
    fn next(&mut self) -> Option<&'a [u8]> {
        let line = self.line;
        let mut i = self.pos;
        while i < line.len() && is_blank(line[i]) {
            i += 1;
        }
        if i == line.len() {
            self.pos = i;
            return None;
        }
        let start = i;
        while i < line.len() && !is_blank(line[i]) {
            i += 1;
        }
        self.pos = i;
        Some(&line[start..i])
    }
}

/// A cursor over the blank-separated fields of a line that parses integers while it
/// scans, so each byte is looked at once (the hot path of the whitespace formats).
pub(crate) struct WsCursor<'a> {
    line: &'a [u8],
    pos: usize,
}

impl<'a> WsCursor<'a> {
    /// A cursor at the start of `line`.
    #[inline]
    pub(crate) fn new(line: &'a [u8]) -> Self {
        WsCursor { line, pos: 0 }
    }

    /// The next field as an unsigned decimal integer. `Err` holds the raw field (empty when
    /// there is none) so the caller can try another syntax or report it.
    #[inline(always)]
    pub(crate) fn int(&mut self) -> Result<u64, &'a [u8]> {
        let line = self.line;
        let len = line.len();
        let mut i = self.pos;
        while i < len && is_blank(line[i]) {
            i += 1;
        }
        let start = i;
        let mut v: u64 = 0;
        while i < len {
            let d = line[i].wrapping_sub(b'0');
            if d > 9 {
                break;
            }
            // Wrapping is harmless: more than 19 digits take the checked path below.
            v = v.wrapping_mul(10).wrapping_add(u64::from(d));
            i += 1;
        }
        let digits = i - start;
        if (1..=19).contains(&digits) && (i == len || is_blank(line[i])) {
            self.pos = i;
            return Ok(v);
        }
        while i < len && !is_blank(line[i]) {
            i += 1;
        }
        self.pos = i;
        let field = &line[start..i];
        parse_u64(field).ok_or(field)
    }

    /// The next field as a device / volume number (`None` unless it is an integer below
    /// 2^32).
    #[inline(always)]
    pub(crate) fn device(&mut self) -> Option<u32> {
        self.int().ok().and_then(|v| u32::try_from(v).ok())
    }

    /// The next field as a count of 512-byte sectors, in bytes (`None` unless it is an
    /// integer whose byte value fits in 64 bits).
    #[inline(always)]
    pub(crate) fn sectors(&mut self) -> Option<u64> {
        self.int().ok().and_then(|v| v.checked_mul(SECTOR))
    }

    /// The next raw field (empty when there is none).
    #[inline]
    pub(crate) fn field(&mut self) -> &'a [u8] {
        let line = self.line;
        let mut i = self.pos;
        while i < line.len() && is_blank(line[i]) {
            i += 1;
        }
        let start = i;
        while i < line.len() && !is_blank(line[i]) {
            i += 1;
        }
        self.pos = i;
        &line[start..i]
    }

    /// Whether only blanks remain.
    #[inline]
    pub(crate) fn at_end(&self) -> bool {
        self.line[self.pos..].iter().all(|&b| is_blank(b))
    }
}

/// Parses an unsigned decimal integer; `None` on anything else or on overflow.
#[inline]
pub(crate) fn parse_u64(s: &[u8]) -> Option<u64> {
    if s.is_empty() {
        return None;
    }
    // Up to 19 digits cannot overflow a u64, so the common case skips the checked ops.
    if s.len() <= 19 {
        let mut v: u64 = 0;
        for &b in s {
            let d = b.wrapping_sub(b'0');
            if d > 9 {
                return None;
            }
            v = v * 10 + u64::from(d);
        }
        return Some(v);
    }
    let mut v: u64 = 0;
    for &b in s {
        let d = b.wrapping_sub(b'0');
        if d > 9 {
            return None;
        }
        v = v.checked_mul(10)?.checked_add(u64::from(d))?;
    }
    Some(v)
}

/// Parses an unsigned decimal integer that must fit a `u32`.
#[inline]
pub(crate) fn parse_u32(s: &[u8]) -> Option<u32> {
    parse_u64(s).and_then(|v| u32::try_from(v).ok())
}

/// Parses a non-negative decimal number (`123`, `123.456`, `.5`) and returns it multiplied
/// by `10^frac_digits`, truncating further fraction digits. `parse_scaled(b"223.412", 6)`
/// is `223_412_000`: milliseconds to nanoseconds without floating point, so timestamps
/// stay exact. `None` on anything that is not such a number or on overflow.
#[inline]
pub(crate) fn parse_scaled(s: &[u8], frac_digits: u32) -> Option<u64> {
    let scale = *POW10.get(frac_digits as usize)?;
    let (int, frac) = match s.iter().position(|&b| b == b'.') {
        Some(p) => (&s[..p], &s[p + 1..]),
        None => return parse_u64(s)?.checked_mul(scale),
    };
    if int.is_empty() && frac.is_empty() {
        return None;
    }
    let whole = if int.is_empty() { 0 } else { parse_u64(int)? };
    let mut v = whole.checked_mul(scale)?;
    let mut unit = scale;
    for &b in frac {
        let d = b.wrapping_sub(b'0');
        if d > 9 {
            return None;
        }
        // Digits beyond the target resolution are validated but dropped (truncation).
        unit /= 10;
        v = v.checked_add(u64::from(d) * unit)?;
    }
    Some(v)
}

/// `a * b` for byte counts, `None` on overflow.
#[inline]
pub(crate) fn mul(a: u64, b: u64) -> Option<u64> {
    a.checked_mul(b)
}

/// The offending text for an error message: lossy UTF-8, control characters escaped (`\r`,
/// `\u{1b}`), at most 80 characters.
pub(crate) fn found_text(line: &[u8]) -> String {
    let text = String::from_utf8_lossy(line);
    let mut out = String::with_capacity(line.len().min(96));
    for (i, c) in text.chars().enumerate() {
        if i == 80 {
            out.push('…');
            break;
        }
        // Control bytes (a stray `\r`, NUL, escape sequences) would garble or hide the
        // message on a terminal; show them escaped. Tabs are field separators: keep them.
        if c.is_control() && c != '\t' {
            out.extend(c.escape_default());
        } else {
            out.push(c);
        }
    }
    out
}

/// A human duration for warnings: `1.5 s`, `3.2 ms`, `120 ns`, `2.1 days`.
pub(crate) fn human_ns(ns: u64) -> String {
    const DAY: u64 = 86_400_000_000_000;
    let f = ns as f64;
    if ns >= DAY {
        format!("{:.1} days", f / DAY as f64)
    } else if ns >= 1_000_000_000 {
        format!("{:.3} s", f / 1e9)
    } else if ns >= 1_000_000 {
        format!("{:.3} ms", f / 1e6)
    } else if ns >= 1_000 {
        format!("{:.3} us", f / 1e3)
    } else {
        format!("{ns} ns")
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn integers() {
        assert_eq!(parse_u64(b"0"), Some(0));
        assert_eq!(parse_u64(b"18446744073709551615"), Some(u64::MAX));
        assert_eq!(parse_u64(b"18446744073709551616"), None);
        assert_eq!(parse_u64(b"99999999999999999999"), None);
        assert_eq!(parse_u64(b""), None);
        assert_eq!(parse_u64(b"-1"), None);
        assert_eq!(parse_u64(b"1a"), None);
        assert_eq!(parse_u32(b"4294967296"), None);
    }

    #[test]
    fn decimals() {
        assert_eq!(parse_scaled(b"223.412", 6), Some(223_412_000));
        assert_eq!(parse_scaled(b"0.000001850", 9), Some(1_850));
        assert_eq!(parse_scaled(b"1.23456789", 3), Some(1_234));
        assert_eq!(parse_scaled(b".5", 3), Some(500));
        assert_eq!(parse_scaled(b"7.", 3), Some(7_000));
        assert_eq!(parse_scaled(b"42", 6), Some(42_000_000));
        assert_eq!(parse_scaled(b".", 3), None);
        assert_eq!(parse_scaled(b"1.2.3", 3), None);
        assert_eq!(parse_scaled(b"1e3", 3), None);
        assert_eq!(parse_scaled(b"18446744073709551615", 1), None);
        assert_eq!(parse_scaled(b"1", 10), None);
    }

    #[test]
    fn splitting() {
        assert_eq!(
            split_ws::<3>(b"  a \tbb c  "),
            Ok([&b"a"[..], &b"bb"[..], &b"c"[..]])
        );
        assert_eq!(split_ws::<3>(b"a b"), Err(2));
        assert_eq!(split_ws::<2>(b"a b c d"), Err(4));
        assert_eq!(
            split_delim::<3>(b"a, b ,", b','),
            Ok([&b"a"[..], &b"b"[..], &b""[..]])
        );
        assert_eq!(split_delim::<2>(b"a,b,c", b','), Err(3));
        assert_eq!(trim(b" \t x y \t"), b"x y");
        assert_eq!(trim(b"   "), b"");
    }

    #[test]
    fn ws_cursor() {
        let mut c = WsCursor::new(b" 12\t345 1.5 x 99999999999999999999 18446744073709551615 ");
        assert_eq!(c.int(), Ok(12));
        assert_eq!(c.int(), Ok(345));
        assert_eq!(c.int(), Err(&b"1.5"[..]));
        assert_eq!(c.field(), b"x");
        assert!(c.int().is_err());
        assert_eq!(c.int(), Ok(u64::MAX));
        assert!(c.at_end());
        assert_eq!(c.int(), Err(&b""[..]));
    }

    #[test]
    fn ws_fields() {
        let f: Vec<&[u8]> = WsFields::new(b"  8,16   5 \t x  ").collect();
        assert_eq!(f, vec![&b"8,16"[..], b"5", b"x"]);
        assert_eq!(WsFields::new(b"   ").next(), None);
    }

    #[test]
    fn found_is_truncated() {
        let long = vec![b'x'; 200];
        assert_eq!(found_text(&long).chars().count(), 81);
        assert_eq!(found_text(b"ab\xffc"), "ab\u{fffd}c");
    }
}
