//! docs/nbd.md runs as written (issue 31 item 7): its first shell block — a server, a
//! client, nbdfuse and mkfs.ext4 — is executed by bash with this build's `ssdlab` first
//! on PATH. Skipped, with the reason printed, when a tool it needs is missing.

use std::process::Command;

fn have(tool: &str) -> bool {
    Command::new("sh")
        .args(["-c", &format!("command -v {tool}")])
        .output()
        .is_ok_and(|o| o.status.success())
}

#[test]
fn the_first_shell_block_of_nbd_md_runs_as_written() {
    let missing: Vec<&str> = ["nbdfuse", "mkfs.ext4", "qemu-io", "nbdinfo", "fusermount3"]
        .into_iter()
        .filter(|t| !have(t))
        .collect();
    if !missing.is_empty() || !std::path::Path::new("/dev/fuse").exists() {
        eprintln!("skipped: docs/nbd.md needs {missing:?} and /dev/fuse");
        return;
    }
    let doc = include_str!("../docs/nbd.md");
    let block = doc
        .split("```sh\n")
        .nth(1)
        .and_then(|b| b.split("```").next())
        .expect("a sh block");
    assert!(block.contains("mkfs.ext4") && block.contains("mkdir -p /tmp/mnt"));
    let bin = std::path::Path::new(env!("CARGO_BIN_EXE_ssdlab"))
        .parent()
        .unwrap()
        .to_owned();
    let path = format!(
        "{}:{}",
        bin.display(),
        std::env::var("PATH").unwrap_or_default()
    );
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
    assert!(out.success(), "docs/nbd.md's block failed ({out}): {err}");
    assert!(!err.contains("does not exist"), "{err}");
}
