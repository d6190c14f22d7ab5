//! MQSim's XML configurations in ssdlab's terms: `ssdconfig.xml` (an
//! `Execution_Parameter_Set` of host, device and flash parameters) and the workload file
//! (`MQSim_IO_Scenarios` of synthetic or trace-based flows), as MQSim (Tavakkol et al.,
//! FAST 2018; github CMU-SAFARI/MQSim) reads them in `Device_Parameter_Set.cpp`,
//! `Flash_Parameter_Set.cpp`, `Host_Parameter_Set.cpp` and `IO_Flow_Parameter_Set*.cpp`.
//!
//! [`import`] turns them into a TOML configuration for `--config`, and says of every
//! MQSim parameter whether it is mapped exactly, approximated (and how), or cannot be
//! mapped (and why), so a reader knows what the ssdlab run does and does not model.
//! Elements MQSim itself does not read are listed with their line. The XML is parsed with
//! `roxmltree` (a read-only DOM with line and column positions; malformed XML is refused
//! naming the file and line).
//!
//! Device keys the default preset sets and MQSim has no parameter for (pages per program,
//! SLC cache, controller latencies, flush-ahead) are pinned to "off", so the preset leaks
//! nothing into the MQSim device.

use std::fmt::Write as _;

mod device;
mod flows;

use device::device;
use flows::flows;

/// What became of one MQSim parameter.
#[derive(Clone, Debug, PartialEq)]
pub enum Fate {
    /// Set exactly.
    Mapped,
    /// Set to the nearest ssdlab equivalent; the text says how.
    Approximated(String),
    /// Not represented; the text says why.
    NotMapped(String),
}

/// One MQSim parameter and what it became.
#[derive(Clone, Debug)]
pub struct Param {
    /// `Device_Parameter_Set/Flash_Channel_Count`.
    pub path: String,
    /// Its text in the file.
    pub value: String,
    /// Line in its file.
    pub line: u32,
    /// The file's name.
    pub file: String,
    /// Mapped, approximated or not.
    pub fate: Fate,
    /// The ssdlab keys it set (`device.channels`).
    pub keys: Vec<String>,
}

/// The result of an import: the configuration and the account of every parameter.
#[derive(Clone, Debug, Default)]
pub struct Import {
    /// Sections in order (`device`, `ftl`, …), each with its keys in order.
    pub sections: Vec<(String, Vec<(String, toml::Value)>)>,
    /// Every MQSim parameter met, in file order.
    pub params: Vec<Param>,
    /// Elements MQSim does not read: (file, path, line).
    pub unknown: Vec<(String, String, u32)>,
    /// Keys not from MQSim, pinned so the default preset leaks nothing.
    pub pinned: Vec<String>,
}

/// Why MQSim files cannot be imported: each variant names the file and, where known, the
/// line, the parameter, the value given and what was expected.
#[derive(Clone, Debug, PartialEq, thiserror::Error)]
pub enum ImportError {
    /// The text is not well-formed XML.
    #[error("{file}: line {line}, column {column}: malformed XML: {message}")]
    Xml {
        /// The file's name.
        file: String,
        /// Line of the fault.
        line: u32,
        /// Column of the fault.
        column: u32,
        /// The XML parser's message.
        message: String,
    },
    /// The root element is not the one the file kind has.
    #[error("{file}: line {line}: the root element is <{found}>; expected <{expected}> ({what})")]
    Root {
        /// The file's name.
        file: String,
        /// Line of the root element.
        line: u32,
        /// The root element found.
        found: String,
        /// The root element expected.
        expected: &'static str,
        /// The kind of file that has it.
        what: &'static str,
    },
    /// A required element is absent.
    #[error("{file}: no {what}")]
    Missing {
        /// The file's name.
        file: String,
        /// What is missing, and where it was looked for.
        what: &'static str,
    },
    /// A parameter's value is outside what MQSim (or the mapping) accepts.
    #[error("{file}: {}{name} = {value}: expected {expected}", at_line(.line))]
    Value {
        /// The file's name.
        file: String,
        /// Line of the parameter, when known.
        line: Option<u32>,
        /// The parameter (with its parameter set when the message gives it).
        name: String,
        /// The value given, as the message shows it.
        value: String,
        /// What is accepted.
        expected: String,
    },
    /// A valid MQSim setting the import does not map.
    #[error("{file}: {name} = {value}: {reason}")]
    Unsupported {
        /// The file's name.
        file: String,
        /// The parameter.
        name: String,
        /// The value given.
        value: String,
        /// Why it is not imported.
        reason: String,
    },
}

/// `line N: ` before a parameter whose line is known.
fn at_line(line: &Option<u32>) -> String {
    line.map(|l| format!("line {l}: ")).unwrap_or_default()
}

/// A parameter read from the file: value and line.
#[derive(Clone, Debug)]
struct Field {
    value: String,
    line: u32,
}

/// The child elements of a parameter set, by name.
struct Set {
    file: String,
    parent: String,
    fields: Vec<(String, Field)>,
}

impl Set {
    fn get(&self, name: &str) -> Option<&Field> {
        self.fields.iter().find(|(n, _)| n == name).map(|(_, f)| f)
    }
}

/// Parses `text` (named `file` in messages) into a document; malformed XML names the
/// file and line.
fn parse<'a>(file: &str, text: &'a str) -> Result<roxmltree::Document<'a>, ImportError> {
    roxmltree::Document::parse_with_options(
        text,
        roxmltree::ParsingOptions {
            allow_dtd: false,
            ..Default::default()
        },
    )
    .map_err(|e| {
        let p = e.pos();
        ImportError::Xml {
            file: file.to_string(),
            line: p.row,
            column: p.col,
            message: e.to_string(),
        }
    })
}

fn line_of(doc: &roxmltree::Document, node: roxmltree::Node) -> u32 {
    doc.text_pos_at(node.range().start).row
}

fn elements<'a, 'i>(
    node: roxmltree::Node<'a, 'i>,
) -> impl Iterator<Item = roxmltree::Node<'a, 'i>> {
    node.children().filter(|c| c.is_element())
}

/// Reads the parameters under `node`, keeping those named in `known` (and the nested
/// sets named in `nested`, which are not parameters) and listing the others as unknown.
fn read_set(
    doc: &roxmltree::Document,
    node: roxmltree::Node,
    file: &str,
    parent: &str,
    known: &[&str],
    nested: &[&str],
    unknown: &mut Vec<(String, String, u32)>,
) -> Set {
    let mut fields = Vec::new();
    for c in elements(node) {
        let name = c.tag_name().name();
        if nested.contains(&name) {
            continue;
        }
        if !known.contains(&name) {
            unknown.push((
                file.to_string(),
                format!("{parent}/{name}"),
                line_of(doc, c),
            ));
            continue;
        }
        fields.push((
            name.to_string(),
            Field {
                value: c.text().unwrap_or("").trim().to_string(),
                line: line_of(doc, c),
            },
        ));
    }
    Set {
        file: file.to_string(),
        parent: parent.to_string(),
        fields,
    }
}

/// MQSim's sector (`SECTOR_SIZE_IN_BYTE`).
const SECTOR_BYTES: u64 = 512;

/// Builds the import step by step.
struct Builder {
    out: Import,
}

impl Builder {
    fn set(&mut self, key: &str, v: impl Into<toml::Value>) {
        let (section, k) = key.split_once('.').expect("dotted key");
        let v = v.into();
        let i = match self.out.sections.iter().position(|(s, _)| s == section) {
            Some(i) => i,
            None => {
                self.out.sections.push((section.to_string(), Vec::new()));
                self.out.sections.len() - 1
            }
        };
        let keys = &mut self.out.sections[i].1;
        match keys.iter_mut().find(|(kk, _)| kk == k) {
            Some(e) => e.1 = v,
            None => keys.push((k.to_string(), v)),
        }
    }

    fn note(&mut self, set: &Set, name: &str, fate: Fate, keys: &[&str]) {
        let Some(f) = set.get(name) else { return };
        self.out.params.push(Param {
            path: format!("{}/{name}", set.parent),
            value: f.value.clone(),
            line: f.line,
            file: set.file.clone(),
            fate,
            keys: keys.iter().map(|k| k.to_string()).collect(),
        });
    }
}

fn num<T: std::str::FromStr>(set: &Set, name: &str, default: T) -> Result<T, ImportError> {
    match set.get(name) {
        None => Ok(default),
        Some(f) => f.value.parse().map_err(|_| ImportError::Value {
            file: set.file.clone(),
            line: Some(f.line),
            name: format!("{}/{name}", set.parent),
            value: format!("{:?}", f.value),
            expected: "a number".into(),
        }),
    }
}

fn text<'a>(set: &'a Set, name: &str, default: &'a str) -> &'a str {
    set.get(name).map_or(default, |f| f.value.as_str())
}

fn flag(set: &Set, name: &str, default: bool) -> bool {
    set.get(name)
        .map_or(default, |f| f.value.eq_ignore_ascii_case("true"))
}

/// What the device import leaves for the workload's: the logical size and the queue.
struct DeviceFacts {
    logical_bytes: u64,
    preconditioning: bool,
}

/// Imports `ssdconfig` (name, text) and optionally a workload file (name, text).
pub fn import(
    ssdconfig: (&str, &str),
    workload: Option<(&str, &str)>,
) -> Result<Import, ImportError> {
    let mut b = Builder {
        out: Import::default(),
    };
    let facts = device(&mut b, ssdconfig)?;
    if let Some(w) = workload {
        flows(&mut b, w, &facts)?;
    }
    // In the order of the files, as a reader compares them with the XML.
    let first = ssdconfig.0.to_string();
    b.out.params.sort_by_key(|p| (p.file != first, p.line));
    Ok(b.out)
}

/// Top-level keys, which TOML needs before any table.
const TOP: &[&str] = &["seed", "precondition", "fill_percent"];

/// The import as a TOML file: a header, the account of every MQSim parameter as
/// comments, then the configuration.
pub fn to_toml(imp: &Import, command: &str) -> String {
    let mut s = String::new();
    let _ = writeln!(
        s,
        "# Written by `{command}` (docs/mqsim.md): MQSim's parameters in ssdlab keys."
    );
    let _ = writeln!(
        s,
        "# Every MQSim parameter is listed: mapped (exactly), approximated (how), or not"
    );
    let _ = writeln!(s, "# mapped (why). Load with `ssdlab run --config FILE`.");
    let _ = writeln!(s, "#");
    for p in &imp.params {
        let what = match &p.fate {
            Fate::Mapped => "mapped".to_string(),
            Fate::Approximated(how) => format!("approximated: {how}"),
            Fate::NotMapped(why) => format!("cannot map: {why}"),
        };
        let keys = if p.keys.is_empty() || matches!(p.fate, Fate::NotMapped(_)) {
            String::new()
        } else {
            format!(" -> {}", p.keys.join(", "))
        };
        let value = if p.value.is_empty() {
            String::new()
        } else {
            format!(" = {}", p.value)
        };
        let _ = writeln!(s, "# {}:{} {}{value}{keys}: {what}", p.file, p.line, p.path);
    }
    if !imp.unknown.is_empty() {
        let _ = writeln!(s, "#");
        let _ = writeln!(s, "# Elements MQSim does not read (ignored here too):");
        for (f, path, line) in &imp.unknown {
            let _ = writeln!(s, "#   {f}:{line} {path}");
        }
    }
    if !imp.pinned.is_empty() {
        let _ = writeln!(s, "#");
        let _ = writeln!(
            s,
            "# Not MQSim parameters, pinned so that the default preset leaks nothing: {}",
            imp.pinned.join(", ")
        );
    }
    s.push('\n');
    // `top.*` holds the top-level keys (TOML puts them before the tables).
    if let Some((_, keys)) = imp.sections.iter().find(|(n, _)| n == "top") {
        for k in TOP {
            if let Some((_, v)) = keys.iter().find(|(kk, _)| kk == k) {
                let _ = writeln!(s, "{k} = {v}");
            }
        }
        s.push('\n');
    }
    // Sub-tables (`ftl.dftl`) after their parent's keys.
    let mut tables: Vec<(String, Vec<(String, toml::Value)>)> = Vec::new();
    for (section, keys) in imp.sections.iter().filter(|(n, _)| n != "top") {
        for (k, v) in keys {
            let (table, key) = match k.rsplit_once('.') {
                Some((sub, key)) => (format!("{section}.{sub}"), key.to_string()),
                None => (section.clone(), k.clone()),
            };
            match tables.iter_mut().find(|(t, _)| *t == table) {
                Some((_, kv)) => kv.push((key, v.clone())),
                None => tables.push((table, vec![(key, v.clone())])),
            }
        }
    }
    tables.sort_by_key(|(t, _)| {
        let top = t.split('.').next().unwrap_or("").to_string();
        let order = ["device", "ftl", "buffer", "host", "workload", "trace"];
        (
            order.iter().position(|o| *o == top).unwrap_or(order.len()),
            t.contains('.'),
            t.clone(),
        )
    });
    for (t, kv) in tables {
        let _ = writeln!(s, "[{t}]");
        for (k, v) in kv {
            let _ = writeln!(s, "{k} = {v}");
        }
        s.push('\n');
    }
    s
}

/// Whether `text` looks like an XML document (for `--config`'s hint).
pub fn looks_like_xml(text: &str) -> bool {
    let t = text.trim_start_matches('\u{feff}').trim_start();
    t.starts_with("<?xml") || t.starts_with('<')
}

/// Greatest common divisor.
fn gcd(a: u64, b: u64) -> u64 {
    if b == 0 { a } else { gcd(b, a % b) }
}
