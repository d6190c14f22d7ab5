//! `precondition = "random"`: from empty, `fill_percent` of the logical space's size in
//! random single-page writes over the whole space. Checked against the occupancy of
//! uniform sampling with replacement (an independent oracle: after `x·N` writes a page
//! is still unwritten with probability `e^-x`), and refused below a file system.

use ssdlab::config::Config;
use ssdlab::run::run;
use ssdlab::sim::RunOptions;

fn config(fill_percent: Option<f64>) -> Config {
    let fill = fill_percent.map_or(String::new(), |p| format!("fill_percent = {p}\n"));
    let text = format!(
        "precondition = \"random\"\n{fill}seed = 7\n[device]\ncapacity = \"256MiB\"\n\
         [ftl]\nname = \"page\"\n[timing]\nmode = \"count\"\n[workload]\n\
         kind = \"seq-read\"\nsize = \"128KiB\"\n"
    );
    Config::load(Some("android-emmc"), Some(("test", &text))).unwrap()
}

#[test]
fn random_aging_leaves_the_unwritten_share_sampling_predicts() {
    for (percent, x) in [(Some(25.0), 0.25f64), (Some(50.0), 0.5), (None, 1.0)] {
        let out = run(&config(percent), RunOptions::default()).unwrap();
        let r = &out.report;
        let unwritten = r.unmapped_read_pages as f64 / r.host_read_pages as f64;
        let expect = (-x).exp();
        assert!(
            (unwritten - expect).abs() < 0.01,
            "{percent:?}: {unwritten} of the pages unwritten, sampling predicts {expect}"
        );
    }
}

/// Random aging below a file system was refused; since EXP-A1 it writes the same aging
/// volume into sparse aging files (the IOzone file's part deleted first) and runs.
#[test]
fn random_aging_runs_below_a_file_system() {
    let text = "precondition = \"random\"\nfill_percent = 25\n[device]\ncapacity = \"256MiB\"\n\
                [fs]\nname = \"yaffs2\"\nworkload = \"iozone-file\"\n[workload]\nspan = \"16MiB\"\n\
                [timing]\nmode = \"count\"\n";
    let c = Config::load(Some("android-emmc"), Some(("test", text))).unwrap();
    c.validate()
        .expect("random aging below a file system validates");
    let out = ssdlab::run::run(&c, ssdlab::sim::RunOptions::default()).expect("it runs");
    assert!(out.report.host_write_pages > 0);
}
