//! Generic delimited text (`--format csv`): the user says which column holds what, in which
//! unit, through a column spec (`TraceOptions::columns`, `--columns` on the command line).
//!
//! # Column-spec syntax
//!
//! `key=value` items separated by commas. Columns count from 0.
//!
//! | key | value | meaning |
//! |---|---|---|
//! | `time` | `COL:UNIT`, unit `s`, `ms`, `us`, `ns` or `100ns` (Windows FILETIME ticks) | arrival time; decimals allowed except for `100ns` |
//! | `offset` | `COL:UNIT`, unit `bytes`, `sectors` (512 B), `kib`, `4k` (4096 B) or a number of bytes | first byte |
//! | `size` | `COL:UNIT`, same units | length |
//! | `op` | `COL` | operation, matched against the `read`/`write`/`trim`/`flush` values |
//! | `dev` | `COL` (optional; default: every request is device 0) | device / volume number |
//! | `delim` | `','` (default), `';'`, `'\|'`, `tab`, `space` … | field separator; `space` means runs of spaces and tabs |
//! | `skip` | `N` (default 0) | header lines to skip at the top of the file |
//! | `read`, `write`, `trim`, `flush` | values separated by `\|` | what the op column says for each operation (ASCII letter case ignored) |
//!
//! Without any `read=`/`write=`/`trim=`/`flush=` item the op values are `read`/`r`,
//! `write`/`w`, `trim`/`discard`/`d` and `flush`/`f`; naming any of them replaces all
//! defaults. Values may be quoted with `'` or `"` (needed for a `,` delimiter). Fields may
//! carry blanks and double quotes around them, which are removed; quoted fields with the
//! delimiter inside are not supported. Columns beyond the ones named are ignored.
//!
//! MSR Cambridge written as a spec:
//! `time=0:100ns,offset=4:bytes,size=5:bytes,op=3,dev=2,delim=',',read=Read,write=Write`.

use super::lex::{is_blank, parse_scaled, parse_u32, parse_u64, trim};
use super::reader::{Expected, LineParser, Parsed, RawRequest};
use super::write::WriteState;
use super::{ALL_OPS, FormatSpec, Reader};
use crate::workload::IoRequest;
use crate::workload::OpKind;
use crate::workload::TraceError;
use std::fmt::Write as _;
use std::io::{self, Write};
use std::str::FromStr;

/// The format's entry in the registry ([`super::FORMATS`]).
pub(crate) const SPEC: FormatSpec = FormatSpec {
    name: "csv",
    summary: "any delimited text; name the columns with --columns",
    ops: ALL_OPS,
    resolution: "time in ns; offset and size in bytes; columns as CSV_CANONICAL_COLUMNS \
                 (read back with that --columns spec)",
    header: "",
    read: Reader::Own(|ctx, _| {
        let text = ctx.opts.columns.as_deref().ok_or_else(|| {
            TraceError::Option(format!(
                "the csv format needs a column spec (--columns), e.g. {COLUMNS_EXAMPLE}"
            ))
        })?;
        let spec: ColumnSpec = text
            .parse()
            .map_err(|e: ColumnSpecError| TraceError::Option(e.to_string()))?;
        ctx.lines(Delimited::new(spec))
    }),
    write: Some(write),
    end: None,
};

/// Largest column index accepted; wider specs are almost certainly typos.
const MAX_COLUMN: usize = 1023;

/// A worked example, shown by every spec error.
pub const COLUMNS_EXAMPLE: &str =
    "time=0:ms,offset=4:bytes,size=5:bytes,op=3,dev=2,delim=',',skip=1,read=Read,write=Write";

/// The syntax summary, shown by every spec error.
const SYNTAX: &str = "key=value items separated by commas, columns counted from 0: \
     time=COL:UNIT (s|ms|us|ns|100ns), offset=COL:UNIT and size=COL:UNIT \
     (bytes|sectors|kib|4k|<bytes per unit>), op=COL, optionally dev=COL, delim=',' \
     (or ';', '|', tab, space), skip=N header lines, and read=/write=/trim=/flush= with \
     the op column's values (alternatives separated by |)";

/// The spec [`super::write_request`] uses for [`super::TraceFormat::Csv`]: time in ns,
/// device, offset and size in bytes, op as `Read`/`Write`/`Trim`/`Flush`.
pub const CSV_CANONICAL_COLUMNS: &str =
    "time=0:ns,dev=1,offset=2:bytes,size=3:bytes,op=4,delim=','";

/// Unit of the time column.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum TimeUnit {
    /// A decimal number of `10^-digits` seconds scaled to ns: `s` = 9 fraction digits kept.
    Decimal {
        frac_digits: u32,
        name: &'static str,
    },
    /// Integer 100 ns ticks (Windows FILETIME).
    Ticks100ns,
}

impl TimeUnit {
    fn name(self) -> &'static str {
        match self {
            TimeUnit::Decimal { name, .. } => name,
            TimeUnit::Ticks100ns => "100ns",
        }
    }
}

/// Field separator.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Delim {
    /// Runs of spaces and tabs.
    Blanks,
    /// One byte; two in a row delimit an empty field.
    Byte(u8),
}

/// A parsed column spec; see the module documentation for the syntax.
///
/// ```
/// use ssdlab_workload::workload::trace::ColumnSpec;
/// let spec: ColumnSpec = "time=0:ms,offset=4:bytes,size=5:bytes,op=3,dev=2".parse().unwrap();
/// assert!("time=0,offset=4,size=5,op=3".parse::<ColumnSpec>().is_err()); // units needed
/// # let _ = spec;
/// ```
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ColumnSpec {
    time: (usize, TimeUnit),
    offset: (usize, u64, String),
    size: (usize, u64, String),
    op: usize,
    dev: Option<usize>,
    delim: Delim,
    skip: u64,
    /// Accepted op values, in the order of [`OP_KEYS`].
    ops: [Vec<Vec<u8>>; 9],
}

const OP_KINDS: [OpKind; 9] = [
    OpKind::Read,
    OpKind::Write,
    OpKind::Trim,
    OpKind::Flush,
    OpKind::ZoneAppend,
    OpKind::ZoneReset,
    OpKind::ZoneFinish,
    OpKind::ZoneOpen,
    OpKind::ZoneClose,
];
/// The op keys of a column spec; the zone ones are ssdlab's, as in the `ascii` layout
/// (docs/traces.md, "Zone operations").
const OP_KEYS: [&str; 9] = [
    "read",
    "write",
    "trim",
    "flush",
    "zone-append",
    "zone-reset",
    "zone-finish",
    "zone-open",
    "zone-close",
];

/// A column spec that cannot be read: the spec as given and what is wrong with it, with
/// the syntax lesson attached (the CLI prints it as is, exit 2).
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
#[error("bad column spec '{spec}': {detail}. Syntax: {SYNTAX}. Example: {COLUMNS_EXAMPLE}")]
pub struct ColumnSpecError {
    /// The whole spec, as given.
    pub spec: String,
    /// The item that is wrong, naming its key and what was expected.
    pub detail: ColumnItemError,
}

/// What is wrong in one item of a column spec; each message names the key and what the
/// item should have said.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum ColumnItemError {
    /// A `'` or `"` opened and never closed.
    #[error("a quote {0} is not closed")]
    UnclosedQuote(char),
    /// An item without `=`.
    #[error("'{0}' is not key=value")]
    NotKeyValue(String),
    /// A key the syntax does not have.
    #[error(
        "unknown key '{0}' (keys: time, offset, size, op, dev, delim, skip, read, write, \
         trim, flush, zone-append, zone-reset, zone-finish, zone-open, zone-close)"
    )]
    UnknownKey(String),
    /// A column that is not a number.
    #[error("{key}={text}: the column must be a number counted from 0")]
    ColumnNotANumber { key: &'static str, text: String },
    /// A column beyond [`MAX_COLUMN`].
    #[error("{key}={text}: columns above {MAX_COLUMN} are not supported")]
    ColumnTooHigh { key: &'static str, text: String },
    /// `time`, `offset` or `size` without `:UNIT`.
    #[error("{key}={value} needs a unit: {key}={}:UNIT with UNIT one of {units}", .value.trim())]
    UnitMissing {
        key: &'static str,
        value: String,
        units: &'static str,
    },
    /// `op` or `dev` with a `:UNIT`.
    #[error("{key}={value}: {key} takes a column without unit")]
    UnitNotTaken { key: &'static str, value: String },
    /// A time unit the syntax does not have.
    #[error("{key}: unknown time unit '{unit}' (use s, ms, us, ns or 100ns)")]
    TimeUnit { key: &'static str, unit: String },
    /// A size unit the syntax does not have.
    #[error(
        "{key}: unknown unit '{unit}' (use bytes, sectors, kib, 4k or a number of bytes per \
         unit)"
    )]
    SizeUnit { key: &'static str, unit: String },
    /// A delimiter that is not one punctuation character or a name.
    #[error(
        "delim={0}: use one ASCII punctuation character, quoted if it is a comma \
         (delim=','), or tab, space, comma, semicolon, pipe"
    )]
    Delim(String),
    /// `skip` that is not a number.
    #[error("skip={0}: skip takes a number of header lines")]
    Skip(String),
    /// `read=`, `write=`, `trim=` or `flush=` with no value.
    #[error("{0}= needs at least one value, e.g. {0}=R")]
    NoOpValue(String),
    /// A required column the spec does not name.
    #[error("it does not say where the {key} is: add {key}={hint}")]
    Missing {
        key: &'static str,
        hint: &'static str,
    },
}

/// Splits on commas that are not inside quotes.
fn split_items(spec: &str) -> Result<Vec<&str>, ColumnItemError> {
    let mut items = Vec::new();
    let mut quote: Option<char> = None;
    let mut start = 0;
    for (i, c) in spec.char_indices() {
        match (quote, c) {
            (Some(q), c) if c == q => quote = None,
            (Some(_), _) => {}
            (None, '\'' | '"') => quote = Some(c),
            (None, ',') => {
                items.push(&spec[start..i]);
                start = i + 1;
            }
            (None, _) => {}
        }
    }
    if let Some(q) = quote {
        return Err(ColumnItemError::UnclosedQuote(q));
    }
    items.push(&spec[start..]);
    Ok(items
        .into_iter()
        .map(str::trim)
        .filter(|s| !s.is_empty())
        .collect())
}

/// Removes one pair of matching quotes around `s`.
fn unquote(s: &str) -> &str {
    let s = s.trim();
    for q in ['\'', '"'] {
        if s.len() >= 2 && s.starts_with(q) && s.ends_with(q) {
            return &s[1..s.len() - 1];
        }
    }
    s
}

fn parse_column(key: &'static str, text: &str) -> Result<usize, ColumnItemError> {
    let col: usize = text
        .trim()
        .parse()
        .map_err(|_| ColumnItemError::ColumnNotANumber {
            key,
            text: text.to_string(),
        })?;
    if col > MAX_COLUMN {
        return Err(ColumnItemError::ColumnTooHigh {
            key,
            text: text.to_string(),
        });
    }
    Ok(col)
}

fn time_unit(key: &'static str, unit: &str) -> Result<TimeUnit, ColumnItemError> {
    let decimal = |frac_digits, name| TimeUnit::Decimal { frac_digits, name };
    Ok(match unit.to_ascii_lowercase().as_str() {
        "s" | "sec" | "seconds" => decimal(9, "s"),
        "ms" | "msec" => decimal(6, "ms"),
        "us" | "µs" | "usec" => decimal(3, "us"),
        "ns" | "nsec" => decimal(0, "ns"),
        "100ns" | "filetime" | "ticks" => TimeUnit::Ticks100ns,
        _ => {
            return Err(ColumnItemError::TimeUnit {
                key,
                unit: unit.to_string(),
            });
        }
    })
}

fn size_unit(key: &'static str, unit: &str) -> Result<u64, ColumnItemError> {
    Ok(match unit.to_ascii_lowercase().as_str() {
        "bytes" | "byte" | "b" => 1,
        "sectors" | "sector" | "sec" => 512,
        "kib" | "k" | "kb" => 1024,
        "4k" | "4kib" | "pages" | "blocks" => 4096,
        n => match n.parse::<u64>() {
            Ok(v) if v > 0 => v,
            _ => {
                return Err(ColumnItemError::SizeUnit {
                    key,
                    unit: unit.to_string(),
                });
            }
        },
    })
}

fn parse_delim(value: &str) -> Result<Delim, ColumnItemError> {
    let raw = value.trim();
    let named = match raw.to_ascii_lowercase().as_str() {
        "comma" => Some(Delim::Byte(b',')),
        "semicolon" => Some(Delim::Byte(b';')),
        "pipe" => Some(Delim::Byte(b'|')),
        "colon" => Some(Delim::Byte(b':')),
        "tab" | "\\t" => Some(Delim::Byte(b'\t')),
        "space" | "spaces" | "blank" | "blanks" | "whitespace" => Some(Delim::Blanks),
        _ => None,
    };
    if let Some(d) = named {
        return Ok(d);
    }
    match unquote(raw).as_bytes() {
        b"\\t" | b"\t" => Ok(Delim::Byte(b'\t')),
        b" " => Ok(Delim::Blanks),
        [b] if b.is_ascii_punctuation() => Ok(Delim::Byte(*b)),
        _ => Err(ColumnItemError::Delim(value.to_string())),
    }
}

impl FromStr for ColumnSpec {
    type Err = ColumnSpecError;

    fn from_str(spec: &str) -> Result<Self, ColumnSpecError> {
        let err = |detail: ColumnItemError| ColumnSpecError {
            spec: spec.to_string(),
            detail,
        };
        let mut time = None;
        let mut offset = None;
        let mut size = None;
        let mut op = None;
        let mut dev = None;
        let mut delim = Delim::Byte(b',');
        let mut skip = 0;
        let mut ops: [Option<Vec<Vec<u8>>>; 9] = Default::default();
        for item in split_items(spec).map_err(err)? {
            let Some((key, value)) = item.split_once('=') else {
                return Err(err(ColumnItemError::NotKeyValue(item.to_string())));
            };
            let key = key.trim().to_ascii_lowercase();
            let (col_text, unit) = match value.split_once(':') {
                Some((c, u)) => (c, Some(u.trim())),
                None => (value, None),
            };
            let needs_unit = |key: &'static str, units: &'static str| {
                unit.ok_or_else(|| {
                    err(ColumnItemError::UnitMissing {
                        key,
                        value: value.to_string(),
                        units,
                    })
                })
            };
            match key.as_str() {
                "time" | "t" => {
                    let u = needs_unit("time", "s, ms, us, ns, 100ns")?;
                    time = Some((
                        parse_column("time", col_text).map_err(err)?,
                        time_unit("time", u).map_err(err)?,
                    ));
                }
                "offset" | "off" | "lba" | "size" | "len" | "length" => {
                    let k = if key.starts_with('o') || key == "lba" {
                        "offset"
                    } else {
                        "size"
                    };
                    let u = needs_unit(k, "bytes, sectors, kib, 4k or a number of bytes")?;
                    let v = (
                        parse_column(k, col_text).map_err(err)?,
                        size_unit(k, u).map_err(err)?,
                        u.to_string(),
                    );
                    if k == "offset" {
                        offset = Some(v);
                    } else {
                        size = Some(v);
                    }
                }
                "op" | "type" | "rw" | "dev" | "device" | "disk" | "volume" => {
                    let k = if matches!(key.as_str(), "op" | "type" | "rw") {
                        "op"
                    } else {
                        "dev"
                    };
                    if unit.is_some() {
                        return Err(err(ColumnItemError::UnitNotTaken {
                            key: k,
                            value: value.to_string(),
                        }));
                    }
                    let c = parse_column(k, col_text).map_err(err)?;
                    if k == "op" {
                        op = Some(c);
                    } else {
                        dev = Some(c);
                    }
                }
                "delim" | "delimiter" | "sep" | "separator" => {
                    delim = parse_delim(value).map_err(err)?;
                }
                "skip" | "header" => {
                    skip = value
                        .trim()
                        .parse()
                        .map_err(|_| err(ColumnItemError::Skip(value.to_string())))?;
                }
                k if OP_KEYS.contains(&k) => {
                    let i = OP_KEYS.iter().position(|x| *x == k).unwrap_or(0);
                    let values: Vec<Vec<u8>> = unquote(value)
                        .split('|')
                        .map(|v| unquote(v).as_bytes().to_vec())
                        .filter(|v| !v.is_empty())
                        .collect();
                    if values.is_empty() {
                        return Err(err(ColumnItemError::NoOpValue(k.to_string())));
                    }
                    ops[i] = Some(values);
                }
                other => {
                    return Err(err(ColumnItemError::UnknownKey(other.to_string())));
                }
            }
        }
        let missing =
            |key: &'static str, hint: &'static str| err(ColumnItemError::Missing { key, hint });
        let time = time.ok_or_else(|| missing("time", "COL:ms (or s, us, ns, 100ns)"))?;
        let offset = offset.ok_or_else(|| missing("offset", "COL:bytes (or sectors, kib, 4k)"))?;
        let size = size.ok_or_else(|| missing("size", "COL:bytes (or sectors, kib, 4k)"))?;
        let op = op.ok_or_else(|| missing("op", "COL"))?;
        let ops = if ops.iter().all(Option::is_none) {
            let list = |v: &[&str]| v.iter().map(|s| s.as_bytes().to_vec()).collect();
            [
                list(&["read", "r"]),
                list(&["write", "w"]),
                list(&["trim", "discard", "d"]),
                list(&["flush", "f"]),
                // What the csv writer writes (`OpKind::name`), the ascii layout's codes
                // and the trace names of the operations.
                list(&["ZoneAppend", "ZA", "zone-append"]),
                list(&["ZoneReset", "ZR", "zone-reset"]),
                list(&["ZoneFinish", "ZF", "zone-finish"]),
                list(&["ZoneOpen", "ZO", "zone-open"]),
                list(&["ZoneClose", "ZC", "zone-close"]),
            ]
        } else {
            ops.map(Option::unwrap_or_default)
        };
        Ok(ColumnSpec {
            time,
            offset,
            size,
            op,
            dev,
            delim,
            skip,
            ops,
        })
    }
}

impl ColumnSpec {
    /// One past the highest column the spec reads.
    fn columns_needed(&self) -> usize {
        [
            self.time.0,
            self.offset.0,
            self.size.0,
            self.op,
            self.dev.unwrap_or(0),
        ]
        .into_iter()
        .max()
        .unwrap_or(0)
            + 1
    }

    /// The layout in words, for error messages.
    fn describe(&self) -> String {
        let sep = match self.delim {
            Delim::Blanks => "space-separated".to_string(),
            Delim::Byte(b'\t') => "tab-separated".to_string(),
            Delim::Byte(b',') => "comma-separated".to_string(),
            Delim::Byte(b) => format!("'{}'-separated", b as char),
        };
        let mut s = format!(
            "{sep} fields (columns from 0) with time in column {} ({}), offset in column {} \
             ({}), size in column {} ({}), op in column {} (",
            self.time.0,
            self.time.1.name(),
            self.offset.0,
            self.offset.2,
            self.size.0,
            self.size.2,
            self.op
        );
        s.push_str(&self.op_values());
        s.push(')');
        if let Some(d) = self.dev {
            let _ = write!(s, ", dev in column {d}");
        }
        s
    }

    /// `read=R|r, write=W` as text.
    fn op_values(&self) -> String {
        let mut parts = Vec::new();
        for (key, values) in OP_KEYS.iter().zip(&self.ops) {
            if values.is_empty() {
                continue;
            }
            let v: Vec<String> = values
                .iter()
                .map(|v| String::from_utf8_lossy(v).into_owned())
                .collect();
            parts.push(format!("{key}={}", v.join("|")));
        }
        parts.join(", ")
    }
}

/// Parser for [`super::TraceFormat::Csv`].
#[derive(Clone, Debug)]
pub(crate) struct Delimited {
    spec: ColumnSpec,
    layout: String,
    need: usize,
    /// Field boundaries of the current line, reused so parsing does not allocate.
    fields: Vec<(usize, usize)>,
}

impl Delimited {
    /// A parser for `spec`.
    pub(crate) fn new(spec: ColumnSpec) -> Self {
        let layout = spec.describe();
        let need = spec.columns_needed();
        Delimited {
            spec,
            layout,
            need,
            fields: Vec::with_capacity(need),
        }
    }

    fn error(&self, col: usize, name: &str, must: &str) -> String {
        format!("{} (column {col}, {name}, must be {must})", self.layout)
    }

    /// Records field boundaries until the needed columns are found.
    #[inline]
    fn split(&mut self, line: &[u8]) {
        self.fields.clear();
        match self.spec.delim {
            Delim::Blanks => {
                let mut i = 0;
                while self.fields.len() < self.need {
                    while i < line.len() && is_blank(line[i]) {
                        i += 1;
                    }
                    if i == line.len() {
                        break;
                    }
                    let start = i;
                    while i < line.len() && !is_blank(line[i]) {
                        i += 1;
                    }
                    self.fields.push((start, i));
                }
            }
            Delim::Byte(d) => {
                let mut start = 0;
                for (i, &b) in line.iter().enumerate() {
                    if b == d {
                        self.fields.push((start, i));
                        if self.fields.len() == self.need {
                            return;
                        }
                        start = i + 1;
                    }
                }
                self.fields.push((start, line.len()));
            }
        }
    }
}

/// A field without surrounding blanks and double quotes.
#[inline]
fn clean(field: &[u8]) -> &[u8] {
    let f = trim(field);
    match f {
        [b'"', inner @ .., b'"'] => trim(inner),
        _ => f,
    }
}

impl LineParser for Delimited {
    fn parse(&mut self, line: &[u8]) -> Result<Parsed, Expected> {
        self.split(line);
        if self.fields.len() < self.need {
            return Err(format!(
                "{} (the line has {} fields, column {} is needed)",
                self.layout,
                self.fields.len(),
                self.need - 1
            )
            .into());
        }
        let field = |c: usize| {
            let (a, b) = self.fields[c];
            clean(&line[a..b])
        };
        let spec = &self.spec;
        let (tc, tu) = spec.time;
        let t = field(tc);
        let time_ns = match tu {
            TimeUnit::Decimal { frac_digits, .. } => parse_scaled(t, frac_digits),
            TimeUnit::Ticks100ns => parse_u64(t).and_then(|v| v.checked_mul(100)),
        }
        .ok_or_else(|| self.error(tc, "time", "a non-negative number below 2^64 ns"))?;
        let (oc, om, _) = &spec.offset;
        let offset = parse_u64(field(*oc))
            .and_then(|v| v.checked_mul(*om))
            .ok_or_else(|| self.error(*oc, "offset", "a non-negative integer"))?;
        let (sc, sm, _) = &spec.size;
        let size = parse_u64(field(*sc))
            .and_then(|v| v.checked_mul(*sm))
            .ok_or_else(|| self.error(*sc, "size", "a non-negative integer"))?;
        let op_text = field(spec.op);
        let op = spec
            .ops
            .iter()
            .position(|vals| vals.iter().any(|v| v.eq_ignore_ascii_case(op_text)))
            .map(|i| OP_KINDS[i])
            .ok_or_else(|| {
                self.error(spec.op, "op", &format!("one of {}", self.spec.op_values()))
            })?;
        let device = match spec.dev {
            Some(c) => {
                parse_u32(field(c)).ok_or_else(|| self.error(c, "dev", "an integer below 2^32"))?
            }
            None => 0,
        };
        // A flush has no range, whatever the columns say.
        let (offset, size) = if op == OpKind::Flush {
            (0, 0)
        } else {
            (offset, size)
        };
        let r = RawRequest::new(time_ns, device, offset, size, op)
            .map_err(|m| format!("{} ({m})", self.layout))?;
        Ok(Parsed::Request(r))
    }

    /// Every line is read on its own (the header lines are skipped before any piece).
    fn fork(&self) -> Option<Self> {
        Some(self.clone())
    }

    fn time_unit(&self) -> &'static str {
        self.spec.time.1.name()
    }

    fn skip_lines(&self) -> u64 {
        self.spec.skip
    }
}

/// Writes `req` in the canonical columns [`CSV_CANONICAL_COLUMNS`]: nanoseconds, device,
/// bytes, the operation's name.
pub(crate) fn write(req: &IoRequest, _: &mut WriteState, out: &mut dyn Write) -> io::Result<()> {
    // Its filter has no column here; the ascii layout carries it (ZQ0-ZQ7).
    if let OpKind::ZoneReport(_) = req.op {
        return Err(io::Error::new(
            io::ErrorKind::InvalidInput,
            "the csv trace layout has no Report Zones operation (the ascii layout's ZQ0-ZQ7)",
        ));
    }
    let op = req.op.name();
    writeln!(
        out,
        "{},{},{},{},{op}",
        req.arrival_ns, req.device, req.offset_bytes, req.size_bytes
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    fn parse_line(spec: &str, line: &str) -> Result<Parsed, Expected> {
        Delimited::new(spec.parse().unwrap()).parse(line.as_bytes())
    }

    fn req(p: Result<Parsed, Expected>) -> RawRequest {
        match p {
            Ok(Parsed::Request(r)) => r,
            Ok(_) => panic!("not a request"),
            Err(e) => panic!("{e}"),
        }
    }

    /// The zone operations the csv writer names (and the ascii layout's codes) read back
    /// with the default op values; before, `ZoneAppend` was "not one of read=…".
    #[test]
    fn zone_operations_read_back_with_the_default_op_values() {
        for (text, op) in [
            ("ZoneAppend", OpKind::ZoneAppend),
            ("ZA", OpKind::ZoneAppend),
            ("ZoneReset", OpKind::ZoneReset),
            ("zr", OpKind::ZoneReset),
            ("ZoneFinish", OpKind::ZoneFinish),
            ("ZF", OpKind::ZoneFinish),
            ("ZoneOpen", OpKind::ZoneOpen),
            ("zone-open", OpKind::ZoneOpen),
            ("ZoneClose", OpKind::ZoneClose),
            ("ZC", OpKind::ZoneClose),
        ] {
            let size = if op == OpKind::ZoneAppend { 8192 } else { 0 };
            let r = req(parse_line(
                CSV_CANONICAL_COLUMNS,
                &format!("5,0,1048576,{size},{text}"),
            ));
            assert_eq!((r.op, r.offset, r.size), (op, 1 << 20, size), "{text}");
        }
        // The writer's line for each reads back as itself.
        for op in OpKind::ZONE_OPS {
            let size = if op == OpKind::ZoneAppend { 4096 } else { 0 };
            let w = IoRequest::new(op, 1 << 20, size);
            let mut out = Vec::new();
            write(&w, &mut WriteState::default(), &mut out).unwrap();
            let line = String::from_utf8(out).unwrap();
            let r = req(parse_line(CSV_CANONICAL_COLUMNS, line.trim_end()));
            assert_eq!(r.op, op, "{line}");
        }
    }

    #[test]
    fn msr_as_a_spec() {
        let spec =
            "time=0:100ns,offset=4:bytes,size=5:bytes,op=3,dev=2,delim=',',read=Read,write=Write";
        let r = req(parse_line(
            spec,
            "128166385295514663,hm,3,Write,9056014336,2048,2833",
        ));
        assert_eq!(
            r,
            RawRequest {
                time_ns: 12_816_638_529_551_466_300,
                device: 3,
                offset: 9_056_014_336,
                size: 2048,
                op: OpKind::Write,
                placement: None,
            }
        );
    }

    #[test]
    fn blanks_units_quotes_and_defaults() {
        let spec = "time=1:ms,offset=2:sectors,size=3:kib,op=0,delim=space";
        let r = req(parse_line(spec, "  R  1.5\t8 4 extra columns"));
        assert_eq!(
            (r.time_ns, r.offset, r.size, r.op),
            (1_500_000, 4096, 4096, OpKind::Read)
        );
        let r = req(parse_line(
            "time=0:s,offset=1:4k,size=2:bytes,op=3,delim=';'",
            "\"2\"; 3;512;\"discard\"",
        ));
        assert_eq!(
            (r.time_ns, r.offset, r.size, r.op),
            (2_000_000_000, 12288, 512, OpKind::Trim)
        );
        let r = req(parse_line(
            "time=0:s,offset=1:4k,size=2:bytes,op=3,delim=tab",
            "0\t1\t0\tF",
        ));
        assert_eq!((r.offset, r.size, r.op), (0, 0, OpKind::Flush));
    }

    #[test]
    fn spec_errors_teach() {
        let e = "time=0,offset=1:bytes,size=2:bytes,op=3"
            .parse::<ColumnSpec>()
            .unwrap_err()
            .to_string();
        assert!(e.contains("time=0 needs a unit"), "{e}");
        assert!(e.contains("Example: time=0:ms"), "{e}");
        let e = "time=0:ms,offset=1:bytes,size=2:bytes"
            .parse::<ColumnSpec>()
            .unwrap_err()
            .to_string();
        assert!(e.contains("add op=COL"), "{e}");
        let e = "tme=0:ms".parse::<ColumnSpec>().unwrap_err().to_string();
        assert!(e.contains("unknown key 'tme'"), "{e}");
        let e = "time=0:fortnights"
            .parse::<ColumnSpec>()
            .unwrap_err()
            .to_string();
        assert!(e.contains("unknown time unit 'fortnights'"), "{e}");
        let e = "time=0:ms,delim='"
            .parse::<ColumnSpec>()
            .unwrap_err()
            .to_string();
        assert!(e.contains("not closed"), "{e}");
        let e = "time=x:ms".parse::<ColumnSpec>().unwrap_err().to_string();
        assert!(e.contains("counted from 0"), "{e}");
        assert!(
            "time=0:ms,offset=1:bytes,size=2:bytes,op=3,delim=abc"
                .parse::<ColumnSpec>()
                .is_err()
        );
    }

    #[test]
    fn line_errors_name_the_column() {
        let spec = "time=0:ms,offset=1:bytes,size=2:bytes,op=3,read=1,write=0";
        let e = parse_line(spec, "1,2,3,7").err().unwrap().to_string();
        assert!(
            e.contains("column 3, op, must be one of read=1, write=0"),
            "{e}"
        );
        let e = parse_line(spec, "1,2").err().unwrap().to_string();
        assert!(
            e.contains("the line has 2 fields, column 3 is needed"),
            "{e}"
        );
        let e = parse_line(spec, "1,x,3,1").err().unwrap().to_string();
        assert!(e.contains("column 1, offset"), "{e}");
    }

    #[test]
    fn canonical_spec_parses() {
        let spec: ColumnSpec = CSV_CANONICAL_COLUMNS.parse().unwrap();
        assert_eq!(spec.columns_needed(), 5);
    }
}
