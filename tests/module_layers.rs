//! The module graph is the architecture: the top-level modules of the workspace's crates
//! (`crates/*/src/`, and `src/` for the command line) form layers, and a module names
//! (`crate::X`) only modules of its own layer or below, with no cycle
//! (docs/architecture.md, "Layers"). The crates are cut along these layers: each crate
//! holds whole modules ([`CRATES`]), and a crate's Cargo.toml names only crates before
//! it (issue 32).
//!
//! The graph is read from the source text the way a reviewer's script reads it: every
//! `crate::X` in a module's files (doc comments included: a doc link is a dependency a
//! reader follows), and every name at the top level of a `use crate::{...}` group; the
//! unit-test module at the end of a file (`#[cfg(test)] mod tests {`) is left out, since
//! tests may build whatever they check. Each crate re-exports the lower crates' modules
//! at its root, so `crate::X` names module X wherever it lives.
//!
//! A back-edge (a module naming one in a higher layer) fails the test unless it is in
//! [`ALLOWED_BACK_EDGES`], each with its reason. That list only shrinks.

use std::collections::{BTreeMap, BTreeSet};
use std::path::Path;

/// The layers, lowest first. A module may name modules of its own layer (the graph must
/// still have no cycle) and of lower layers.
const LAYERS: &[(&str, &[&str])] = &[
    // Shared vocabulary: sizes, helpers, the validation error every section returns.
    ("L0 base", &["units", "util", "spec", "registry"]),
    // The physical model: the NAND array (state, payloads, superblock layout) and its
    // time model; MQSim's XML read into TOML text (it names nothing but units).
    ("L1 flash", &["nand", "timing", "mqsim"]),
    // Components, each validating its own section: FTLs and GC, the write buffer, the
    // host queue, the host-side log, the workload generators and trace readers, the
    // zones of a zoned namespace, the arbitration between submission queues, FDP's
    // placement bookkeeping.
    (
        "L2 components",
        &[
            "ftl",
            "buffer",
            "host",
            "host_log",
            "workload",
            "zns",
            "arbitration",
            "fdp",
        ],
    ),
    // The configuration that aggregates the sections, the report model and its
    // renderers, and the device pipeline that runs a design.
    ("L3 device", &["config", "report", "sim"]),
    // What runs on or around the device: file systems, the hybrid HDD store, the block
    // device server, payload stores and crash tests, the run entry point, sweeps.
    (
        "L4 applications",
        &["fs", "hybrid", "nbd", "data", "run", "sweep"],
    ),
    // Reproductions of the papers' figures; the name lists of every registry (they
    // list the papers), which the CLI and the Python module show.
    ("L5 experiments", &["experiments", "names"]),
    // The command line (src/main.rs and src/cli/; it names the library as `ssdlab::`).
    ("L6 cli", &["cli"]),
];

/// The workspace's crates, lowest first, with the top-level modules each holds (its
/// folder under `crates/`, or `.` for the root package). A crate may depend only on
/// crates before it; the layers above run through them in order (L1–L3 are all in
/// ssdlab-core, whose hot path must stay in one crate to be inlined).
const CRATES: &[(&str, &str, &[&str])] = &[
    (
        "ssdlab-base",
        "crates/base",
        &["units", "util", "spec", "registry"],
    ),
    ("ssdlab-workload", "crates/workload", &["workload"]),
    (
        "ssdlab-core",
        "crates/core",
        &[
            "nand",
            "timing",
            "mqsim",
            "ftl",
            "buffer",
            "host",
            "host_log",
            "config",
            "report",
            "sim",
            "zns",
            "arbitration",
            "fdp",
        ],
    ),
    ("ssdlab-fs", "crates/fs", &["fs"]),
    ("ssdlab-hybrid", "crates/hybrid", &["hybrid"]),
    ("ssdlab-emu", "crates/emu", &["data", "nbd"]),
    ("ssdlab-sweep", "crates/sweep", &["run", "sweep"]),
    (
        "ssdlab-experiments",
        "crates/experiments",
        &["experiments", "names"],
    ),
    ("ssdlab", ".", &["cli"]),
];

/// Edges from a lower layer to a higher one that are still there, each with the reason.
/// Remove an entry when its edge goes; never add one without a reason a reviewer accepts.
const ALLOWED_BACK_EDGES: &[(&str, &str, &str)] = &[];

fn is_word(c: char) -> bool {
    c.is_alphanumeric() || c == '_'
}

/// The text of a file without its unit-test module (`#[cfg(test)]`, then `mod tests {`
/// to the end of the file, whitespace allowed between).
fn without_tests(text: &str) -> &str {
    let mut from = 0;
    while let Some(i) = text[from..].find("#[cfg(test)]") {
        let at = from + i;
        let rest = text[at + "#[cfg(test)]".len()..].trim_start();
        if let Some(after) = rest.strip_prefix("mod tests")
            && after.trim_start().starts_with('{')
        {
            return &text[..at];
        }
        from = at + 1;
    }
    text
}

/// The word starting at the beginning of `s`.
fn leading_word(s: &str) -> &str {
    let end = s.find(|c: char| !is_word(c)).unwrap_or(s.len());
    &s[..end]
}

/// Names of top-level modules that `text` refers to through `crate::`.
fn referenced(text: &str, modules: &BTreeSet<String>, out: &mut BTreeSet<String>) {
    for (i, _) in text.match_indices("crate::") {
        let word = leading_word(&text[i + "crate::".len()..]);
        if modules.contains(word) {
            out.insert(word.to_string());
        }
    }
    // `use crate::{a, b::c, d::{e}}`: the group runs to the last `}` before the `;`.
    for (i, _) in text.match_indices("use crate::{") {
        let start = i + "use crate::{".len();
        let stop = text[start..].find(';').map_or(text.len(), |j| start + j);
        let Some(close) = text[start..stop].rfind('}') else {
            continue;
        };
        let group = &text[start..start + close];
        let mut prev: Option<char> = None;
        for (j, c) in group.char_indices() {
            let starts_word = match prev {
                None => true,
                Some(p) => p == ',' || p == '{' || p.is_whitespace(),
            };
            if is_word(c) && starts_word {
                let word = leading_word(&group[j..]);
                if modules.contains(word) {
                    out.insert(word.to_string());
                }
            }
            prev = Some(c);
        }
    }
}

fn rust_files(dir: &Path, out: &mut Vec<std::path::PathBuf>) {
    for entry in std::fs::read_dir(dir).expect("readable source folder") {
        let path = entry.expect("a directory entry").path();
        if path.is_dir() {
            rust_files(&path, out);
        } else if path.extension().is_some_and(|e| e == "rs") {
            out.push(path);
        }
    }
}

/// The source folders to read: every crate's `src/`; or, with MODULE_LAYERS_SRC set, that
/// one folder (another checkout's `src/`, to see the test fail on an older tree).
fn source_dirs() -> Vec<std::path::PathBuf> {
    if let Some(src) = std::env::var_os("MODULE_LAYERS_SRC") {
        return vec![src.into()];
    }
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    CRATES
        .iter()
        .map(|(_, dir, _)| root.join(dir).join("src"))
        .collect()
}

/// The graph: for each top-level module of the crates' `src/`, the other top-level
/// modules it names.
fn module_graph() -> BTreeMap<String, BTreeSet<String>> {
    // Module name -> the folder it is in.
    let mut modules = BTreeMap::new();
    for src in source_dirs() {
        for entry in std::fs::read_dir(&src).expect("src/") {
            let path = entry.expect("a directory entry").path();
            let name = path.file_name().unwrap().to_string_lossy().to_string();
            let module = if path.is_dir() {
                name
            } else if let Some(stem) = name.strip_suffix(".rs")
                && stem != "lib"
                && stem != "main"
            {
                stem.to_string()
            } else {
                continue;
            };
            if let Some(other) = modules.insert(module.clone(), src.clone()) {
                assert_eq!(other, src, "module {module} is in two crates");
            }
        }
    }
    let names_of: BTreeSet<String> = modules.keys().cloned().collect();
    let mut graph = BTreeMap::new();
    for (m, src) in &modules {
        let mut files = Vec::new();
        let file = src.join(format!("{m}.rs"));
        if file.exists() {
            files.push(file);
        }
        let dir = src.join(m);
        if dir.is_dir() {
            rust_files(&dir, &mut files);
        }
        let mut names = BTreeSet::new();
        for f in files {
            let text = std::fs::read_to_string(&f).expect("a readable source file");
            referenced(without_tests(&text), &names_of, &mut names);
        }
        names.remove(m);
        graph.insert(m.clone(), names);
    }
    graph
}

fn layer_of() -> BTreeMap<&'static str, usize> {
    let mut layer = BTreeMap::new();
    for (i, (_, mods)) in LAYERS.iter().enumerate() {
        for m in *mods {
            assert!(layer.insert(*m, i).is_none(), "{m} is in two layers");
        }
    }
    layer
}

/// A cycle through the graph's edges, if there is one.
fn find_cycle(graph: &BTreeMap<String, BTreeSet<String>>) -> Option<Vec<String>> {
    // 0 = unvisited, 1 = on the current path, 2 = done.
    fn visit(
        m: &str,
        graph: &BTreeMap<String, BTreeSet<String>>,
        state: &mut BTreeMap<String, u8>,
        path: &mut Vec<String>,
    ) -> Option<Vec<String>> {
        state.insert(m.to_string(), 1);
        path.push(m.to_string());
        for n in &graph[m] {
            match state.get(n.as_str()).copied().unwrap_or(0) {
                1 => {
                    let from = path.iter().position(|p| p == n).expect("on the path");
                    let mut cycle = path[from..].to_vec();
                    cycle.push(n.clone());
                    return Some(cycle);
                }
                0 => {
                    if let Some(c) = visit(n, graph, state, path) {
                        return Some(c);
                    }
                }
                _ => {}
            }
        }
        path.pop();
        state.insert(m.to_string(), 2);
        None
    }
    let mut state = BTreeMap::new();
    for m in graph.keys() {
        if state.get(m.as_str()).copied().unwrap_or(0) == 0
            && let Some(c) = visit(m, graph, &mut state, &mut Vec::new())
        {
            return Some(c);
        }
    }
    None
}

#[test]
fn every_module_has_a_layer() {
    let layer = layer_of();
    for m in module_graph().keys() {
        assert!(
            layer.contains_key(m.as_str()),
            "src/{m} is in no layer: add it to LAYERS here and to docs/architecture.md"
        );
    }
}

#[test]
fn modules_name_only_their_own_layer_or_lower() {
    let layer = layer_of();
    let graph = module_graph();
    let mut found = Vec::new();
    for (m, names) in &graph {
        let Some(&lm) = layer.get(m.as_str()) else {
            continue;
        };
        for n in names {
            let ln = layer[n.as_str()];
            if ln > lm {
                found.push((m.clone(), n.clone()));
            }
        }
    }
    let allowed: BTreeSet<(String, String)> = ALLOWED_BACK_EDGES
        .iter()
        .map(|(a, b, _)| (a.to_string(), b.to_string()))
        .collect();
    let new: Vec<String> = found
        .iter()
        .filter(|e| !allowed.contains(*e))
        .map(|(a, b)| {
            format!(
                "{a} ({}) -> {b} ({})",
                LAYERS[layer[a.as_str()]].0,
                LAYERS[layer[b.as_str()]].0
            )
        })
        .collect();
    assert!(
        new.is_empty(),
        "modules naming a higher layer (move the item down, or invert the call with a \
         trait or a value; see docs/architecture.md): {new:?}"
    );
    let gone: Vec<_> = allowed.iter().filter(|e| !found.contains(e)).collect();
    assert!(
        gone.is_empty(),
        "back-edges no longer there: remove them from ALLOWED_BACK_EDGES: {gone:?}"
    );
}

#[test]
fn the_module_graph_has_no_cycle() {
    let mut graph = module_graph();
    for (a, b, _) in ALLOWED_BACK_EDGES {
        if let Some(names) = graph.get_mut(*a) {
            names.remove(*b);
        }
    }
    assert_eq!(
        find_cycle(&graph),
        None,
        "an import cycle between top-level modules"
    );
}

/// The reader finds what the reviewer's script finds: doc links and `use` groups count,
/// test modules do not.
#[test]
fn the_reader_sees_links_groups_and_skips_tests() {
    let modules: BTreeSet<String> = ["sim", "nand", "ftl", "config", "report"]
        .iter()
        .map(|s| s.to_string())
        .collect();
    let text = "//! see [`crate::sim::Device`]\nuse crate::{\n    nand::Lpn,\n    ftl::{Ftl},\n};\n\
                #[cfg(test)]\nmod tests {\n    use crate::config::Config;\n}\n";
    let mut out = BTreeSet::new();
    referenced(without_tests(text), &modules, &mut out);
    let got: Vec<_> = out.iter().map(String::as_str).collect();
    assert_eq!(got, ["ftl", "nand", "sim"]);
    // A module only cfg(test) elsewhere in the file still counts.
    let mut out = BTreeSet::new();
    referenced(
        without_tests("#[cfg(test)]\nuse crate::report::Report;\n"),
        &modules,
        &mut out,
    );
    assert!(out.contains("report"));
}

/// The crates' own dependencies (normal, dev and build) on other crates of the workspace,
/// read from their Cargo.toml files.
fn crate_graph() -> BTreeMap<String, BTreeSet<String>> {
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let ours: BTreeSet<&str> = CRATES.iter().map(|(name, _, _)| *name).collect();
    let mut graph = BTreeMap::new();
    for (name, dir, _) in CRATES {
        let text = std::fs::read_to_string(root.join(dir).join("Cargo.toml"))
            .expect("a crate's Cargo.toml");
        let manifest: toml::Table = toml::from_str(&text).expect("a valid Cargo.toml");
        let package = manifest["package"]["name"].as_str().expect("package.name");
        assert_eq!(package, *name, "{dir}/Cargo.toml names another package");
        let mut deps = BTreeSet::new();
        for section in ["dependencies", "dev-dependencies", "build-dependencies"] {
            if let Some(table) = manifest.get(section).and_then(|s| s.as_table()) {
                for (key, value) in table {
                    // A renamed dependency (`x = { package = "ssdlab-…" }`) counts too.
                    let dep = value.get("package").and_then(|p| p.as_str()).unwrap_or(key);
                    if ours.contains(dep) {
                        deps.insert(dep.to_string());
                    }
                }
            }
        }
        graph.insert(name.to_string(), deps);
    }
    graph
}

#[test]
fn crates_depend_only_on_lower_crates() {
    let order: BTreeMap<&str, usize> = CRATES
        .iter()
        .enumerate()
        .map(|(i, (name, _, _))| (*name, i))
        .collect();
    let mut up = Vec::new();
    for (c, deps) in crate_graph() {
        for d in deps {
            if order[d.as_str()] >= order[c.as_str()] {
                up.push(format!("{c} -> {d}"));
            }
        }
    }
    assert!(
        up.is_empty(),
        "crates naming a crate at or above them (move the code down instead): {up:?}"
    );
}

/// Every module is in the crate [`CRATES`] says, and a module names only modules of its
/// own crate or of crates its crate depends on (directly or through others): the
/// compiler checks it too, this says which edge to cut.
#[test]
fn modules_live_in_their_crate_and_name_only_crates_below() {
    if std::env::var_os("MODULE_LAYERS_SRC").is_some() {
        return; // another checkout's single crate
    }
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let mut crate_of = BTreeMap::new();
    for (name, dir, mods) in CRATES {
        for m in *mods {
            let src = root.join(dir).join("src");
            assert!(
                src.join(format!("{m}.rs")).exists() || src.join(m).is_dir(),
                "module {m} is not in {dir}/src (CRATES says it is in {name})"
            );
            crate_of.insert(m.to_string(), *name);
        }
    }
    let deps = crate_graph();
    // Transitive closure: what each crate can name.
    let reach = |c: &str| {
        let mut seen = BTreeSet::from([c.to_string()]);
        let mut todo = vec![c.to_string()];
        while let Some(x) = todo.pop() {
            for d in deps.get(&x).into_iter().flatten() {
                if seen.insert(d.clone()) {
                    todo.push(d.clone());
                }
            }
        }
        seen
    };
    let mut bad = Vec::new();
    for (m, names) in module_graph() {
        let Some(c) = crate_of.get(&m) else {
            bad.push(format!("module {m} is in no crate of CRATES"));
            continue;
        };
        let can = reach(c);
        for n in names {
            if !can.contains(crate_of[&n]) {
                bad.push(format!("{m} ({c}) -> {n} ({})", crate_of[&n]));
            }
        }
    }
    assert!(
        bad.is_empty(),
        "modules naming a crate theirs does not depend on: {bad:?}"
    );
}

/// The root package's dependencies stay the ones its command line and facade need: the
/// Python module and the fuzz targets depend on the crates, never on the root.
#[test]
fn the_python_module_depends_on_crates_not_the_root() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let text = std::fs::read_to_string(root.join("python/Cargo.toml")).expect("python/Cargo.toml");
    let manifest: toml::Table = toml::from_str(&text).expect("a valid Cargo.toml");
    for (key, value) in manifest["dependencies"].as_table().expect("[dependencies]") {
        let dep = value.get("package").and_then(|p| p.as_str()).unwrap_or(key);
        let path = value.get("path").and_then(|p| p.as_str()).unwrap_or("");
        assert!(
            dep != "ssdlab" && path != "..",
            "python/ depends on the root package (`{key}`), which pulls in the CLI and clap"
        );
    }
}
