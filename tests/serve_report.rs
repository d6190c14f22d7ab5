//! Issue 31 item 7, serve's side: a `--data` restart with another design names the
//! differing keys in one line (was a 1.5 KB dump of two configs); `serve --help` offers
//! no comma lists; the banner says `latency none`/`simulated`/`scaled=F` (was `latency
//! None`); with timed replies serve reports, in its statistics lines and on exit,
//! whether it kept real time.

use std::os::unix::net::UnixStream;
use std::path::Path;
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

mod common;
use common::{ssdlab, stderr};

fn start(sock: &Path, args: &[&str]) -> Child {
    let child = Command::new(env!("CARGO_BIN_EXE_ssdlab"))
        .arg("serve")
        .args(args)
        .arg("--socket")
        .arg(sock)
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let t = Instant::now();
    while UnixStream::connect(sock).is_err() {
        assert!(t.elapsed() < Duration::from_secs(60), "never listened");
        std::thread::sleep(Duration::from_millis(20));
    }
    child
}

/// SIGTERM, then the output.
fn stop(child: Child) -> std::process::Output {
    Command::new("kill")
        .args(["-TERM", &child.id().to_string()])
        .status()
        .unwrap();
    child.wait_with_output().unwrap()
}

#[test]
fn a_restart_with_another_design_names_the_differing_key_in_one_line() {
    let dir = tempfile::tempdir().unwrap();
    let data = dir.path().join("d.img");
    let d = data.to_str().unwrap();
    let s = start(
        &dir.path().join("a.sock"),
        &["--capacity", "16MiB", "--buffer", "none", "--data", d],
    );
    assert!(stop(s).status.success());
    let sock = dir.path().join("b.sock");
    let o = ssdlab(&[
        "serve",
        "--capacity",
        "32MiB",
        "--buffer",
        "none",
        "--data",
        d,
        "--socket",
        sock.to_str().unwrap(),
    ]);
    let e = stderr(&o);
    assert_eq!(o.status.code(), Some(2), "{e}");
    assert!(
        e.contains("logical_pages") && e.contains("in the file"),
        "{e}"
    );
    assert_eq!(e.trim_end().lines().count(), 1, "{e}");
    assert!(e.len() < 400, "{} bytes: {e}", e.len());
    assert!(!e.contains("\"gc\""), "no config dump: {e}");
}

#[test]
fn serve_help_offers_one_name_and_the_banner_names_the_latency() {
    let h = ssdlab(&["serve", "--help"]);
    let text = String::from_utf8_lossy(&h.stdout);
    assert!(!text.contains("comma list"), "{text}");
    assert!(!text.contains("NAME[,NAME"), "{text}");

    let dir = tempfile::tempdir().unwrap();
    let sock = dir.path().join("s.sock");
    let s = start(
        &sock,
        &[
            "--capacity",
            "16MiB",
            "--latency",
            "scaled=2",
            "--stats-every",
            "0.1",
        ],
    );
    // One request, so a timed reply is counted: NBD's handshake and a disconnect.
    std::thread::sleep(Duration::from_millis(300));
    let o = stop(s);
    let e = String::from_utf8_lossy(&o.stderr);
    let out = String::from_utf8_lossy(&o.stdout);
    assert!(o.status.success(), "{e}");
    assert!(e.contains("latency scaled=2"), "{e}");
    assert!(!e.contains("None"), "{e}");
    assert!(
        e.contains("kept real time") && e.contains("timed replies") && e.contains("p99"),
        "no real-time line on exit: {e}"
    );
    let last = out.lines().last().expect("statistics lines");
    let v: serde_json::Value = serde_json::from_str(last).unwrap();
    assert!(v["real_time"]["late_share"].is_number(), "{last}");

    let s = start(&dir.path().join("n.sock"), &["--capacity", "16MiB"]);
    let e = String::from_utf8_lossy(&stop(s).stderr).into_owned();
    assert!(e.contains("latency none"), "{e}");
    assert!(!e.contains("timed replies"), "{e}");
}
