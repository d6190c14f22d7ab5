//! docs/nbd.md runs as written (issue 31 item 7): its first shell block (a server, a
//! client, nbdfuse and mkfs.ext4) and its namespaces' block (two exports) are executed
//! by bash with this build's `ssdlab` first on PATH. Skipped, with the reason printed,
//! when a tool it needs is missing.

use std::process::Command;

fn have(tool: &str) -> bool {
    Command::new("sh")
        .args(["-c", &format!("command -v {tool}")])
        .output()
        .is_ok_and(|o| o.status.success())
}

#[test]
fn the_shell_blocks_of_nbd_md_run_as_written() {
    let missing: Vec<&str> = ["nbdfuse", "mkfs.ext4", "qemu-io", "nbdinfo", "fusermount3"]
        .into_iter()
        .filter(|t| !have(t))
        .collect();
    if !missing.is_empty() || !std::path::Path::new("/dev/fuse").exists() {
        eprintln!("skipped: docs/nbd.md needs {missing:?} and /dev/fuse");
        return;
    }
    let doc = include_str!("../docs/nbd.md");
    let blocks: Vec<&str> = doc
        .split("```sh\n")
        .skip(1)
        .filter_map(|b| b.split("```").next())
        .collect();
    assert!(blocks[0].contains("mkfs.ext4") && blocks[0].contains("mkdir -p /tmp/mnt"));
    // The namespaces' block: one export per namespace. (The later blocks are the
    // crashtest's and a real device's probe, run elsewhere or not at all.)
    let namespaces = blocks
        .iter()
        .find(|b| b.contains("nbd+unix:///logs"))
        .expect("the namespaces' block");
    let blocks = [blocks[0], namespaces];
    let bin = std::path::Path::new(env!("CARGO_BIN_EXE_ssdlab"))
        .parent()
        .unwrap()
        .to_owned();
    let path = format!(
        "{}:{}",
        bin.display(),
        std::env::var("PATH").unwrap_or_default()
    );
    for block in blocks {
        run_block(block, &path);
    }
}

/// Runs one shell block of docs/nbd.md with `path` as PATH; fails with its stderr.
fn run_block(block: &str, path: &str) {
    let script = format!("set -e\n{block}");
    let mut child = Command::new("timeout")
        .args(["120", "bash", "-c", &script])
        .env("PATH", path)
        .stdout(std::process::Stdio::piped())
        .stderr(std::process::Stdio::piped())
        .spawn()
        .unwrap();
    let out = child.wait().unwrap();
    let mut err = String::new();
    use std::io::Read;
    child
        .stderr
        .take()
        .unwrap()
        .read_to_string(&mut err)
        .unwrap();
    // Whatever happened, nothing stays mounted.
    let _ = Command::new("fusermount3")
        .args(["-u", "/tmp/mnt"])
        .output();
    assert!(
        out.success(),
        "a block of docs/nbd.md failed ({out}): {err}\n{block}"
    );
    assert!(!err.contains("does not exist"), "{err}");
}
