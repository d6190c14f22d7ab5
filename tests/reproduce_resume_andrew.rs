//! `reproduce --all --out DIR` is resumable for the experiments whose cells replay a
//! block trace they record themselves (EXP-C2, EXP-C3: the Andrew benchmark below a
//! page cache): a second run into the same directory finds every cell in the store and
//! its trace files unchanged, runs nothing, and judges the same.

mod common;

use std::path::Path;

fn store_lines(dir: &Path) -> Vec<String> {
    std::fs::read_to_string(dir.join("store.jsonl"))
        .unwrap()
        .lines()
        .map(String::from)
        .collect()
}

fn traces(dir: &Path) -> Vec<(String, std::time::SystemTime, Vec<u8>)> {
    let mut v: Vec<_> = std::fs::read_dir(dir)
        .unwrap()
        .map(|e| e.unwrap().path())
        .filter(|p| p.extension().is_some_and(|x| x == "ascii"))
        .map(|p| {
            let m = std::fs::metadata(&p).unwrap().modified().unwrap();
            (p.display().to_string(), m, std::fs::read(&p).unwrap())
        })
        .collect();
    v.sort();
    v
}

#[test]
fn a_second_run_reuses_the_store_and_the_recorded_traces() {
    let tmp = tempfile::tempdir().unwrap();
    let out = tmp.path().join("out");
    let args = |exp: &'static str| {
        vec![
            "reproduce".to_string(),
            "--all".into(),
            "--quick".into(),
            "--experiment".into(),
            exp.into(),
            "--out".into(),
            out.to_str().unwrap().into(),
        ]
    };
    for exp in ["EXP-C2", "EXP-C3"] {
        let a = args(exp);
        let a: Vec<&str> = a.iter().map(String::as_str).collect();
        let o = common::ssdlab(&a);
        assert!(o.status.success(), "{}", common::stderr(&o));
        let dir = out.join("cells").join(exp);
        let (cells, files) = (store_lines(&dir), traces(&dir));
        assert!(
            !files.is_empty(),
            "{exp}: the recorded traces are in its store directory"
        );
        assert!(cells.len() > files.len(), "{exp}: several cells a trace");
        assert!(
            cells.iter().all(|l| l.contains("\"status\":\"ok\"")),
            "{exp}"
        );
        let claims = std::fs::read_to_string(out.join("claims.csv")).unwrap();
        let o = common::ssdlab(&a);
        assert!(o.status.success(), "{}", common::stderr(&o));
        assert_eq!(store_lines(&dir), cells, "{exp}: no cell ran again");
        assert_eq!(traces(&dir), files, "{exp}: the traces were not rewritten");
        assert_eq!(
            std::fs::read_to_string(out.join("claims.csv")).unwrap(),
            claims,
            "{exp}: the same verdicts from the stored reports"
        );
    }
}
