//! A generator's own table, `[workload.NAME]` (docs/config.md, "Generator tables"): each
//! table sets the same settings as the flat `[workload]` keys it names, is refused with
//! another generator, and a table key and its flat key with two values are refused.

use ssdlab::config::Config;

fn load(text: &str) -> Result<Config, String> {
    let t: toml::Table = toml::from_str(text).map_err(|e| e.to_string())?;
    Config::load_with(None, None, t).map_err(|e| e.to_string())
}

fn workload_json(text: &str) -> serde_json::Value {
    let cfg = load(text).unwrap_or_else(|e| panic!("{text}\n{e}"));
    serde_json::to_value(&cfg.workload).unwrap()
}

/// (the table form, the same settings as flat keys), one per generator with a table.
const SAME: &[(&str, &str)] = &[
    (
        "kind = \"seq-write\"\n[workload.seq-write]\nstreams = 4\nstream_loop = \"per-stream\"",
        "kind = \"seq-write\"\nstreams = 4\nstream_loop = \"per-stream\"",
    ),
    (
        "kind = \"seq-read\"\n[workload.seq-read]\nstreams = 2",
        "kind = \"seq-read\"\nstreams = 2",
    ),
    (
        "kind = \"zipf\"\n[workload.zipf]\ntheta = 0.8",
        "kind = \"zipf\"\nzipf_theta = 0.8",
    ),
    (
        "kind = \"hot-cold\"\n[workload.hot-cold]\nhot_span_percent = 10.0\nhot_access_percent = 90.0",
        "kind = \"hot-cold\"\nhot_span_percent = 10.0\nhot_access_percent = 90.0",
    ),
    (
        "kind = \"oltp\"\n[workload.oltp]\nzipf_theta = 1.2",
        "kind = \"oltp\"\nzipf_theta = 1.2",
    ),
    (
        "kind = \"iozone\"\n[workload.iozone]\nrecord = \"16KiB\"\nreads_first = true\nrandom = \"zipf\"\nzipf_theta = 0.7",
        "kind = \"iozone\"\niozone_record = \"16KiB\"\niozone_reads_first = true\niozone_random = \"zipf\"\nzipf_theta = 0.7",
    ),
    (
        "kind = \"probe\"\n[workload.probe]\nstep = \"64KiB\"\npartitions = 2\nblock = \"16KiB\"",
        "kind = \"probe\"\nprobe_step = \"64KiB\"\nprobe_partitions = 2\nprobe_block = \"16KiB\"",
    ),
    (
        "kind = \"andrew\"\n[workload.andrew]\nfiles = 50",
        "kind = \"andrew\"\nandrew_files = 50",
    ),
    (
        "kind = \"zoned-seq\"\n[workload.zoned-seq]\nzone_size = \"16MiB\"\nzone_capacity = \"8MiB\"",
        "kind = \"zoned-seq\"\nzone_size = \"16MiB\"\nzone_capacity = \"8MiB\"",
    ),
];

#[test]
fn each_table_sets_what_its_flat_keys_set_and_the_echo_is_the_flat_form() {
    for (table, flat) in SAME {
        let a = workload_json(&format!("[workload]\n{table}\n"));
        let b = workload_json(&format!("[workload]\n{flat}\n"));
        assert_eq!(a, b, "{table}");
        // The flat form differs from the defaults: the table really set something.
        assert_ne!(b, workload_json("[workload]\n"), "{flat}");
    }
}

#[test]
fn a_table_of_another_generator_is_refused_naming_it() {
    for (table, _) in SAME {
        let other = "mixed";
        let name = table
            .split("[workload.")
            .nth(1)
            .unwrap()
            .split(']')
            .next()
            .unwrap();
        let text = format!(
            "[workload]\n{}",
            table.replacen(
                &format!("kind = \"{}\"", table.split('"').nth(1).unwrap()),
                &format!("kind = \"{other}\""),
                1
            )
        );
        let e = load(&text).unwrap_err();
        assert!(
            e.contains(&format!(
                "no [workload.{name}] table with workload.kind = \"{other}\""
            )),
            "{text}\n{e}"
        );
    }
}

#[test]
fn a_table_key_and_its_flat_key_with_two_values_are_refused() {
    let e = load("[workload]\nkind = \"zipf\"\nzipf_theta = 0.5\n[workload.zipf]\ntheta = 0.8\n")
        .unwrap_err();
    assert!(
        e.contains("workload.zipf.theta") && e.contains("zipf_theta"),
        "{e}"
    );
    // The same value twice, or the flat key at its default, is one setting.
    let same =
        load("[workload]\nkind = \"zipf\"\nzipf_theta = 0.8\n[workload.zipf]\ntheta = 0.8\n");
    assert_eq!(same.unwrap().workload.zipf_theta, 0.8);
    let e = load("[workload]\nkind = \"zipf\"\n[workload.zipf]\nzipf_theta = 0.8\n").unwrap_err();
    assert!(e.contains("zipf_theta") && e.contains("theta"), "{e}");
}

#[test]
fn a_phase_table_wins_over_the_keys_the_phase_inherits() {
    let cfg = load(
        "[workload]\nzipf_theta = 0.5\nrequests = 10\n[[workload.phase]]\nkind = \"zipf\"\n\
         [workload.phase.zipf]\ntheta = 0.7\n[[workload.phase]]\nkind = \"zipf\"\n",
    )
    .unwrap();
    let p0 = ssdlab::workload::synth::phases::resolve(&cfg.workload, 0)
        .unwrap()
        .1;
    let p1 = ssdlab::workload::synth::phases::resolve(&cfg.workload, 1)
        .unwrap()
        .1;
    assert_eq!((p0.zipf_theta, p1.zipf_theta), (0.7, 0.5));
    let e = load(
        "[workload]\nrequests = 10\n[[workload.phase]]\nkind = \"mixed\"\n\
         [workload.phase.zipf]\ntheta = 0.7\n",
    )
    .and_then(|c| c.validate().map(drop).map_err(|e| e.to_string()))
    .unwrap_err();
    assert!(e.contains("workload.phase[0].zipf"), "{e}");
}

#[test]
fn a_namespace_workload_takes_the_tables_too() {
    let cfg = load(
        "[device]\ncapacity = \"1GiB\"\n[[namespace]]\nname = \"a\"\nshare = 0.5\n\
         [namespace.workload]\nkind = \"zipf\"\n[namespace.workload.zipf]\ntheta = 0.6\n",
    )
    .unwrap();
    assert_eq!(cfg.namespaces[0].workload.as_ref().unwrap().zipf_theta, 0.6);
}
