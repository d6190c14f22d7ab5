//! Runs the Python package's tests (python/tests, pytest: the API against the CLI, and
//! the Ray backend on a local 2-CPU cluster) from the venv CI prepares.
//!
//! The venv is `$SSDLAB_VENV`, else `.venv` in the checkout, with the package installed
//! (`pip install .`), pytest, pandas, pyarrow and ray. Without it the test says so and
//! passes — except under `SSDLAB_CI=1`, where a missing venv fails it.

use std::path::PathBuf;
use std::process::Command;

fn venv_python() -> Option<PathBuf> {
    let venv = std::env::var_os("SSDLAB_VENV")
        .map(PathBuf::from)
        .unwrap_or_else(|| PathBuf::from(env!("CARGO_MANIFEST_DIR")).join(".venv"));
    let py = venv.join("bin").join("python");
    py.exists().then_some(py)
}

#[test]
fn python_package_tests_pass() {
    let ci = std::env::var("SSDLAB_CI").is_ok_and(|v| v == "1");
    let Some(py) = venv_python() else {
        assert!(
            !ci,
            "SSDLAB_CI=1 but no venv with the ssdlab package (.venv or $SSDLAB_VENV); see .ci/run"
        );
        eprintln!("skipped: no .venv with the ssdlab Python package (see docs/python.md)");
        return;
    };
    let importable = Command::new(&py)
        .args(["-c", "import ssdlab, pandas, pytest"])
        .status()
        .is_ok_and(|s| s.success());
    if !importable {
        assert!(
            !ci,
            "SSDLAB_CI=1 but {} cannot import ssdlab, pandas and pytest",
            py.display()
        );
        eprintln!("skipped: {} lacks ssdlab, pandas or pytest", py.display());
        return;
    }
    let o = Command::new(&py)
        .current_dir(env!("CARGO_MANIFEST_DIR"))
        .args([
            "-m",
            "pytest",
            "-q",
            "-p",
            "no:cacheprovider",
            "python/tests",
        ])
        .env("SSDLAB_BIN", env!("CARGO_BIN_EXE_ssdlab"))
        .output()
        .expect("run pytest");
    let text = format!(
        "{}{}",
        String::from_utf8_lossy(&o.stdout),
        String::from_utf8_lossy(&o.stderr)
    );
    eprintln!("{text}");
    assert!(o.status.success(), "pytest failed:\n{text}");
}
