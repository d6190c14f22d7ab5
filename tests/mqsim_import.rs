//! `ssdlab import-mqsim`: MQSim's default ssdconfig.xml (tests/data/mqsim, MIT licence
//! beside it) becomes scripts/mqsim-defaults.toml exactly, every mapped parameter lands
//! on its key, the result loads and resolves to MQSim's geometry, the workload's flow
//! becomes generator settings, and hostile or malformed XML is refused naming file and
//! line (exit 2).

mod common;

use ssdlab::config::Config;
use ssdlab::mqsim::{Fate, import, to_toml};

const SSD: &str = include_str!("data/mqsim/ssdconfig.xml");
const WORKLOAD: &str = include_str!("data/mqsim/workload.xml");
const DEFAULTS: &str = include_str!("../scripts/mqsim-defaults.toml");

fn load(text: &str) -> Config {
    Config::load_with(None, Some(("imported", text)), toml::Table::new()).unwrap()
}

#[test]
fn the_default_xml_round_trips_to_the_committed_toml() {
    let imp = import(("ssdconfig.xml", SSD), None).unwrap();
    let text = to_toml(&imp, "ssdlab import-mqsim ssdconfig.xml");
    assert_eq!(
        text, DEFAULTS,
        "scripts/mqsim-defaults.toml is not the importer's output: regenerate it with \
         (cd tests/data/mqsim && ssdlab import-mqsim ssdconfig.xml -o ../../../scripts/mqsim-defaults.toml)"
    );
    // Every parameter of the file is accounted for, and nothing is unknown.
    let elements = SSD.matches("</").count() - 4; // minus the four parameter sets
    assert_eq!(imp.params.len(), elements, "{:#?}", imp.params);
    assert!(imp.unknown.is_empty(), "{:?}", imp.unknown);
}

#[test]
fn each_mapped_parameter_lands_on_its_key() {
    let imp = import(("ssdconfig.xml", SSD), None).unwrap();
    let cfg = load(&to_toml(&imp, "t"));
    let d = &cfg.device;
    let json = serde_json::to_value(&cfg).unwrap();
    let dev = &json["device"];
    assert_eq!(dev["cell"], "mlc");
    assert_eq!(dev["channels"], 8);
    assert_eq!(dev["chips_per_channel"], 4);
    assert_eq!(dev["dies_per_chip"], 2);
    assert_eq!(dev["planes_per_die"], 2);
    assert_eq!(dev["pages_per_block"], 256);
    assert_eq!(dev["read_ns"], 75_000);
    assert_eq!(dev["program_ns"], 750_000);
    assert_eq!(dev["erase_ns"], 3_800_000);
    assert_eq!(dev["endurance_cycles"], 10_000);
    assert_eq!(dev["channel_mb_s"], 333.0);
    assert_eq!(dev["host_link_mb_s"], 4000.0);
    assert_eq!(dev["copyback"], false);
    assert_eq!(json["ftl"]["name"], "dftl");
    assert_eq!(json["ftl"]["dftl"]["cmt_entries"], 233_016);
    assert_eq!(json["ftl"]["dftl"]["cmt_policy"], "lru");
    assert_eq!(json["ftl"]["dftl"]["cmt_start"], "cold");
    assert_eq!(json["ftl"]["gc"], "d-choices");
    assert_eq!(json["ftl"]["gc_d"], 11);
    assert_eq!(json["ftl"]["gc_low_free_blocks"], 103);
    assert_eq!(json["buffer"]["name"], "lru");
    assert_eq!(json["seed"], 321);
    // The geometry resolves to MQSim's: 2048 blocks per plane, and MQSim's logical
    // pages ⌊67,108,864 × 0.93⌋.
    let r = cfg.resolve_device().unwrap();
    assert_eq!(r.logical_pages, 62_411_243);
    assert_eq!(r.geometry.blocks_per_plane, 2048);
    assert_eq!(r.geometry.page_size_bytes, 8192);
    let _ = d;
    // Each parameter says what became of it; the mapped ones name their keys.
    for p in &imp.params {
        if p.fate == Fate::Mapped && !p.keys.is_empty() {
            assert!(
                p.keys
                    .iter()
                    .all(|k| k.contains('.') || k == "seed" || k == "precondition"),
                "{p:?}"
            );
        }
    }
    let fate = |name: &str| {
        imp.params
            .iter()
            .find(|p| p.path.ends_with(name))
            .unwrap_or_else(|| panic!("{name} not listed"))
            .fate
            .clone()
    };
    assert_eq!(fate("/Flash_Channel_Count"), Fate::Mapped);
    assert!(matches!(fate("/CMT_Capacity"), Fate::Approximated(_)));
    assert!(matches!(
        fate("/Transaction_Scheduling_Policy"),
        Fate::NotMapped(_)
    ));
    // The ideal mapping table is the page FTL, with static wear leveling.
    let ideal = SSD.replace("<Ideal_Mapping_Table>false<", "<Ideal_Mapping_Table>true<");
    let cfg = load(&to_toml(&import(("x.xml", &ideal), None).unwrap(), "t"));
    let json = serde_json::to_value(&cfg).unwrap();
    assert_eq!(json["ftl"]["name"], "page");
    assert_eq!(json["ftl"]["static_wl_threshold"], 100);
    cfg.resolve_device().unwrap();
}

#[test]
fn the_first_flow_becomes_the_workload_and_the_rest_are_listed() {
    let imp = import(("ssdconfig.xml", SSD), Some(("workload.xml", WORKLOAD))).unwrap();
    let cfg = load(&to_toml(&imp, "t"));
    let json = serde_json::to_value(&cfg).unwrap();
    assert_eq!(json["workload"]["kind"], "random-write");
    assert_eq!(json["workload"]["size"], "4KiB");
    // MQSim aligns its 4 KiB requests to 8 KiB; ssdlab's alignment must divide the
    // size, so the importer takes 4 KiB (a superset of the start addresses) and says so.
    assert_eq!(json["workload"]["align"], "4KiB");
    assert!(
        imp.params
            .iter()
            .any(|p| p.path.ends_with("Address_Alignment_Unit")
                && matches!(&p.fate, Fate::Approximated(w) if w.contains("superset")))
    );
    cfg.validate().expect("the imported design validates");
    assert_eq!(json["host"]["qd"], 16);
    assert_eq!(json["seed"], 798);
    // `Intensity` is in MQSim's own workload.xml but MQSim reads `Bandwidth`.
    assert_eq!(imp.unknown.len(), 1, "{:?}", imp.unknown);
    assert!(imp.unknown[0].1.ends_with("/Intensity"));
    assert_eq!(imp.unknown[0].2, 24);
    let skipped = imp
        .params
        .iter()
        .filter(|p| matches!(&p.fate, Fate::NotMapped(w) if w.contains("one flow per run")))
        .count();
    assert_eq!(skipped, 4);
    // A trace-based flow becomes the trace settings.
    let trace = r#"<MQSim_IO_Scenarios><IO_Scenario><IO_Flow_Parameter_Set_Trace_Based>
<File_Path>t.ascii</File_Path><Time_Unit>MICROSECOND</Time_Unit>
</IO_Flow_Parameter_Set_Trace_Based></IO_Scenario></MQSim_IO_Scenarios>"#;
    let imp = import(("ssdconfig.xml", SSD), Some(("w.xml", trace))).unwrap();
    let text = to_toml(&imp, "t");
    let t: toml::Table = toml::from_str(&text).unwrap();
    assert_eq!(t["trace"]["path"].as_str(), Some("t.ascii"));
    assert_eq!(t["trace"]["format"].as_str(), Some("ascii"));
    assert_eq!(t["host"]["speedup"].as_float(), Some(0.001));
}

#[test]
fn hostile_and_malformed_xml_is_refused_naming_file_and_line() {
    for (xml, words) in [
        (
            "<Execution_Parameter_Set>\n<Device_Parameter_Set>\n<Seed>1</Seed>\n</Execution_Parameter_Set>",
            &["bad.xml: line 4", "malformed XML"][..],
        ),
        // Entity expansion (a "billion laughs" DTD) is refused, not expanded.
        (
            "<?xml version=\"1.0\"?>\n<!DOCTYPE l [<!ENTITY a \"aaaaaaaaaa\"><!ENTITY b \"&a;&a;&a;&a;&a;&a;&a;&a;&a;&a;\">]>\n<Execution_Parameter_Set>&b;</Execution_Parameter_Set>",
            &["bad.xml: line 1", "malformed XML", "DTD"][..],
        ),
        (
            "<Other/>",
            &["bad.xml: line 1", "<Execution_Parameter_Set>"][..],
        ),
        (
            "<Execution_Parameter_Set><Device_Parameter_Set><Flash_Channel_Count>eight</Flash_Channel_Count></Device_Parameter_Set></Execution_Parameter_Set>",
            &["Flash_Channel_Count", "\"eight\"", "expected a number"][..],
        ),
        (
            "<Execution_Parameter_Set><Device_Parameter_Set><Overprovisioning_Ratio>1.5</Overprovisioning_Ratio></Device_Parameter_Set></Execution_Parameter_Set>",
            &["Overprovisioning_Ratio = 1.5"][..],
        ),
        (
            "<Execution_Parameter_Set><Device_Parameter_Set><Flash_Channel_Count>0</Flash_Channel_Count></Device_Parameter_Set></Execution_Parameter_Set>",
            &["Flash_Channel_Count = 0"][..],
        ),
        ("", &["bad.xml", "malformed XML"][..]),
    ] {
        let e = import(("bad.xml", xml), None).unwrap_err().to_string();
        for w in words {
            assert!(e.contains(w), "{xml}\nerror lacks {w:?}: {e}");
        }
    }
    // Unknown elements are listed with their line, not fatal.
    let imp = import(
        ("u.xml", "<Execution_Parameter_Set>\n<Device_Parameter_Set>\n<Flash_Chanel_Count>8</Flash_Chanel_Count>\n</Device_Parameter_Set>\n</Execution_Parameter_Set>"),
        None,
    )
    .unwrap();
    assert_eq!(
        imp.unknown,
        vec![(
            "u.xml".to_string(),
            "Device_Parameter_Set/Flash_Chanel_Count".to_string(),
            3
        )]
    );
}

#[test]
fn the_cli_writes_the_toml_and_refuses_xml_as_config() {
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().join("m.toml");
    let o = common::ssdlab(&[
        "import-mqsim",
        "tests/data/mqsim/ssdconfig.xml",
        "tests/data/mqsim/workload.xml",
        "-o",
        out.to_str().unwrap(),
    ]);
    assert!(o.status.success(), "{}", common::stderr(&o));
    assert!(
        common::stderr(&o).contains("Intensity"),
        "{}",
        common::stderr(&o)
    );
    let text = std::fs::read_to_string(&out).unwrap();
    assert!(
        text.contains("Flash_Channel_Count = 8 -> device.channels: mapped"),
        "{text}"
    );
    // MQSim's flow stops at Stop_Time (10 s of simulated time); so does the import.
    assert!(
        text.contains("stop_ns = 10000000000")
            && text.contains("Stop_Time = 10000000000 -> host.stop_ns: mapped"),
        "{text}"
    );
    // The imported file runs as written (MQSim's 4 KiB requests on 8 KiB boundaries
    // once made it invalid).
    let o = common::ssdlab(&[
        "run",
        "--config",
        out.to_str().unwrap(),
        "--requests",
        "500",
        "-q",
    ]);
    assert!(o.status.success(), "{}", common::stderr(&o));
    // Malformed XML: exit 2, file and line.
    let bad = dir.path().join("bad.xml");
    std::fs::write(
        &bad,
        "<Execution_Parameter_Set>\n<a>\n</Execution_Parameter_Set>\n",
    )
    .unwrap();
    let o = common::ssdlab(&["import-mqsim", bad.to_str().unwrap()]);
    assert_eq!(o.status.code(), Some(2));
    let e = common::stderr(&o);
    assert!(e.contains("bad.xml: line 3"), "{e}");
    // --config with MQSim's XML says what to do instead of a TOML parse error.
    let o = common::ssdlab(&["run", "--config", "tests/data/mqsim/ssdconfig.xml"]);
    assert_eq!(o.status.code(), Some(2));
    let e = common::stderr(&o);
    assert!(
        e.contains("this is MQSim XML") && e.contains("ssdlab import-mqsim"),
        "{e}"
    );
}

/// A refused import is a typed error naming the file, the line, the parameter, the value
/// and what was expected; its message is the text the string error had.
#[test]
fn a_refused_import_is_typed_and_keeps_its_message() {
    use ssdlab::mqsim::ImportError;
    let e = import(("bad.xml", "<Other/>"), None).unwrap_err();
    assert_eq!(
        e,
        ImportError::Root {
            file: "bad.xml".into(),
            line: 1,
            found: "Other".into(),
            expected: "Execution_Parameter_Set",
            what: "MQSim's ssdconfig.xml",
        }
    );
    assert_eq!(
        e.to_string(),
        "bad.xml: line 1: the root element is <Other>; expected <Execution_Parameter_Set> (MQSim's ssdconfig.xml)"
    );
    let xml = "<Execution_Parameter_Set>\n<Device_Parameter_Set>\n<Flash_Channel_Count>eight</Flash_Channel_Count>\n</Device_Parameter_Set>\n</Execution_Parameter_Set>";
    assert_eq!(
        import(("d.xml", xml), None).unwrap_err().to_string(),
        "d.xml: line 3: Device_Parameter_Set/Flash_Channel_Count = \"eight\": expected a number"
    );
    let xml = "<Execution_Parameter_Set><Device_Parameter_Set><Address_Mapping>HYBRID</Address_Mapping></Device_Parameter_Set></Execution_Parameter_Set>";
    assert_eq!(
        import(("d.xml", xml), None).unwrap_err().to_string(),
        "d.xml: Address_Mapping = \"HYBRID\": only PAGE_LEVEL is imported (MQSim's HYBRID mapping is unfinished in MQSim itself)"
    );
}
