//! A sweep killed halfway and started again runs only the missing cells and ends with
//! the same table as an uninterrupted sweep; failed cells are recorded and the rest go
//! on; the outputs agree with each other (CSV, Parquet read back, JSON lines).

mod common;

use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

const CELLS: usize = 24;

/// A 24-cell grid whose cells each take a noticeable fraction of a second.
fn write_grid(dir: &Path) -> PathBuf {
    let g = dir.join("grid.toml");
    std::fs::write(
        &g,
        r#"
[base]
workload = "random-write"
set = { "device.capacity" = "256MiB", "workload.requests" = 60000 }

[[axis]]
key = "ftl.name"
values = ["page", "dftl"]

[[axis]]
key = "seed"
values = [1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12]
"#,
    )
    .unwrap();
    g
}

fn sweep(grid: &Path, out: &Path, extra: &[&str]) -> Command {
    let mut c = Command::new(env!("CARGO_BIN_EXE_ssdlab"));
    c.arg("sweep").arg(grid).arg("--out").arg(out).args(extra);
    c
}

fn lines(p: &Path) -> usize {
    std::fs::read_to_string(p)
        .map(|t| t.matches('\n').count())
        .unwrap_or(0)
}

#[test]
fn killed_halfway_it_resumes_with_only_the_missing_cells_and_the_same_table() {
    let dir = tempfile::tempdir().unwrap();
    let grid = write_grid(dir.path());

    // Uninterrupted.
    let full = dir.path().join("full");
    let o = sweep(&grid, &full, &["-j", "2"]).output().unwrap();
    assert!(o.status.success(), "{}", common::stderr(&o));
    assert_eq!(lines(&full.join("store.jsonl")), CELLS);

    // Killed (SIGKILL: no chance to tidy up) once at least a third of the cells are in.
    let part = dir.path().join("part");
    let mut child = sweep(&grid, &part, &["-j", "2"])
        .stderr(Stdio::null())
        .spawn()
        .unwrap();
    let store = part.join("store.jsonl");
    let start = Instant::now();
    while lines(&store) < CELLS / 3 {
        assert!(
            start.elapsed() < Duration::from_secs(300),
            "no progress in 5 minutes"
        );
        std::thread::sleep(Duration::from_millis(2));
    }
    child.kill().unwrap();
    child.wait().unwrap();
    let done = lines(&store);
    assert!(
        done < CELLS,
        "the sweep finished before it could be killed; make its cells longer"
    );
    assert!(
        !part.join("results.csv").exists(),
        "outputs written by a killed sweep"
    );
    // A kill in the middle of a write leaves at most one partial line; simulate one.
    let mut text = std::fs::read_to_string(&store).unwrap();
    text.push_str("{\"key\":\"cut short");
    std::fs::write(&store, text).unwrap();

    let o = sweep(&grid, &part, &["-j", "2"]).output().unwrap();
    let err = common::stderr(&o);
    assert!(o.status.success(), "{err}");
    assert!(
        err.contains(&format!("{done} already done, {} to run", CELLS - done)),
        "the restart did not run exactly the missing cells:\n{err}"
    );
    // Every cell ran exactly once over both runs: one whole line per key.
    let text = std::fs::read_to_string(&store).unwrap();
    let mut keys: Vec<String> = text
        .lines()
        .map(|l| {
            serde_json::from_str::<ssdlab::sweep::Record>(l)
                .unwrap()
                .key
        })
        .collect();
    assert_eq!(keys.len(), CELLS);
    keys.sort();
    keys.dedup();
    assert_eq!(keys.len(), CELLS, "a cell ran twice");

    // The same table, byte for byte, in CSV and Parquet.
    let (a, b) = (
        std::fs::read_to_string(full.join("results.csv")).unwrap(),
        std::fs::read_to_string(part.join("results.csv")).unwrap(),
    );
    for (i, (x, y)) in a.lines().zip(b.lines()).enumerate() {
        assert_eq!(
            x,
            y,
            "results.csv line {} differs (uninterrupted, resumed)",
            i + 1
        );
    }
    assert_eq!(a, b);
    assert!(
        std::fs::read(full.join("results.parquet")).unwrap()
            == std::fs::read(part.join("results.parquet")).unwrap(),
        "results.parquet differs between the resumed and the uninterrupted sweep"
    );

    // Run again: nothing to do, same outputs.
    let o = sweep(&grid, &part, &[]).output().unwrap();
    assert!(common::stderr(&o).contains(&format!("{CELLS} already done, 0 to run")));
    assert_eq!(lines(&store), CELLS);
}

#[test]
fn a_failing_cell_is_recorded_and_the_others_go_on() {
    let dir = tempfile::tempdir().unwrap();
    // An empty trace passes validation but has nothing to simulate.
    std::fs::write(dir.path().join("empty.csv"), "").unwrap();
    std::fs::write(
        dir.path().join("good.csv"),
        (0..200)
            .map(|i| {
                format!(
                    "{},hm,0,Write,{},4096,100\n",
                    128_166_372_000_000_000u64 + i * 10_000,
                    i * 4096
                )
            })
            .collect::<String>(),
    )
    .unwrap();
    let grid = dir.path().join("g.toml");
    std::fs::write(
        &grid,
        r#"
[base]
set = { "device.capacity" = "64MiB", "trace.format" = "msr" }
[[axis]]
key = "trace"
values = ["empty.csv", "good.csv"]
[[axis]]
key = "ftl.name"
values = ["page", "dftl"]
"#,
    )
    .unwrap();
    let out = dir.path().join("out");
    let o = sweep(&grid, &out, &[]).output().unwrap();
    let err = common::stderr(&o);
    assert_eq!(o.status.code(), Some(1), "{err}");
    assert!(err.contains("2 of 4 cells failed"), "{err}");
    let csv = std::fs::read_to_string(out.join("results.csv")).unwrap();
    let mut r = csv::Reader::from_reader(csv.as_bytes());
    let h = r.headers().unwrap().clone();
    let col = |n: &str| h.iter().position(|c| c == n).unwrap();
    let rows: Vec<csv::StringRecord> = r.records().map(Result::unwrap).collect();
    assert_eq!(rows.len(), 4);
    for row in &rows {
        let empty = row[col("trace")].ends_with("empty.csv");
        assert_eq!(&row[col("status")], if empty { "failed" } else { "ok" });
        assert_eq!(row[col("error")].contains("no request"), empty, "{row:?}");
        assert_eq!(row[col("iops")].is_empty(), empty);
    }
    // A failed cell counts as done: a second sweep runs nothing; --retry-failed reruns it.
    let o = sweep(&grid, &out, &[]).output().unwrap();
    assert!(common::stderr(&o).contains("4 already done, 0 to run"));
    let o = sweep(&grid, &out, &["--retry-failed"]).output().unwrap();
    assert!(
        common::stderr(&o).contains("2 already done, 2 to run"),
        "{}",
        common::stderr(&o)
    );
}

#[test]
fn parquet_and_jsonl_agree_with_the_csv() {
    use parquet::file::reader::{FileReader, SerializedFileReader};
    let dir = tempfile::tempdir().unwrap();
    let grid = dir.path().join("g.toml");
    std::fs::write(
        &grid,
        r#"
repeat = 2
[base]
workload = "mixed"
set = { "device.capacity" = "64MiB", "workload.requests" = 3000 }
[[axis]]
key = "ftl.name"
values = ["page", "dftl"]
[[axis]]
key = "ftl.gc"
values = ["greedy", "d-choices", "cost-benefit"]
"#,
    )
    .unwrap();
    let out = dir.path().join("out");
    let o = sweep(&grid, &out, &["--html", out.to_str().unwrap()])
        .output()
        .unwrap();
    let err = common::stderr(&o);
    let csv = std::fs::read_to_string(out.join("results.csv")).unwrap_or_else(|_| panic!("{err}"));
    let mut r = csv::Reader::from_reader(csv.as_bytes());
    let header: Vec<String> = r.headers().unwrap().iter().map(String::from).collect();
    let rows: Vec<Vec<String>> = r
        .records()
        .map(|x| x.unwrap().iter().map(String::from).collect())
        .collect();
    assert_eq!(rows.len(), 12);
    for c in [
        "cell",
        "key",
        "status",
        "ftl.name",
        "ftl.gc",
        "rep",
        "seed",
        "latency_ns_p99",
        "write_amplification",
        "iops",
    ] {
        assert!(header.iter().any(|h| h == c), "no column {c}");
    }

    let reader =
        SerializedFileReader::new(std::fs::File::open(out.join("results.parquet")).unwrap())
            .unwrap();
    let schema: Vec<String> = reader
        .metadata()
        .file_metadata()
        .schema_descr()
        .columns()
        .iter()
        .map(|c| c.name().to_string())
        .collect();
    assert_eq!(schema, header);
    let mut n = 0;
    for (i, row) in reader.get_row_iter(None).unwrap().enumerate() {
        let row = row.unwrap();
        for (j, (_, field)) in row.get_column_iter().enumerate() {
            use parquet::record::Field;
            let want = &rows[i][j];
            match field {
                Field::Null => assert!(want.is_empty(), "row {i} {}: null vs {want}", header[j]),
                Field::Long(v) => assert_eq!(v.to_string(), *want, "row {i} {}", header[j]),
                Field::Double(v) => {
                    assert_eq!(*v, want.parse::<f64>().unwrap(), "row {i} {}", header[j])
                }
                Field::Str(s) => assert_eq!(s, want, "row {i} {}", header[j]),
                f => panic!("unexpected field {f:?}"),
            }
        }
        n += 1;
    }
    assert_eq!(n, 12);

    let jsonl = std::fs::read_to_string(out.join("reports.jsonl")).unwrap();
    let objs: Vec<serde_json::Value> = jsonl
        .lines()
        .map(|l| serde_json::from_str(l).unwrap())
        .collect();
    assert_eq!(objs.len(), 12);
    let key_col = header.iter().position(|h| h == "key").unwrap();
    for (o, row) in objs.iter().zip(&rows) {
        assert_eq!(o["key"], row[key_col].as_str());
        if o["status"] == "ok" {
            let p99 = header.iter().position(|h| h == "latency_ns_p99").unwrap();
            assert_eq!(o["report"]["latency_ns"]["p99"].to_string(), row[p99]);
        }
    }
    let page = std::fs::read_to_string(out.join("index.html")).unwrap();
    assert!(page.contains("<svg") && page.contains("class=\"sortable\""));
    for external in ["src=\"http", "href=\"http", "<link", "@import", "url(http"] {
        assert!(
            !page.contains(external),
            "the page loads something from the network: {external}"
        );
    }
}
