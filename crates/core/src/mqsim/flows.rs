//! The workload half of an MQSim import: the first flow of `MQSim_IO_Scenarios`
//! (`IO_Flow_Parameter_Set.cpp`, `..._Synthetic.cpp`, `..._Trace_Based.cpp`) mapped onto
//! ssdlab's `workload`, `trace` and `host` keys: the flow's common parameters, then either
//! the trace's or the synthetic generator's (addresses, working set, sizes, alignment,
//! arrivals, run length), one function per group.

use super::{
    Builder, DeviceFacts, Fate, ImportError, Param, SECTOR_BYTES, Set, elements, flag, gcd,
    line_of, num, parse, read_set, text,
};

/// The parameters of both kinds of flow (`IO_Flow_Parameter_Set.cpp`).
const FLOW: &[&str] = &[
    "Priority_Class",
    "Device_Level_Data_Caching_Mode",
    "Channel_IDs",
    "Chip_IDs",
    "Die_IDs",
    "Plane_IDs",
    "Initial_Occupancy_Percentage",
];

/// A synthetic flow's own parameters (`IO_Flow_Parameter_Set_Synthetic.cpp`).
const SYNTHETIC: &[&str] = &[
    "Working_Set_Percentage",
    "Synthetic_Generator_Type",
    "Read_Percentage",
    "Address_Distribution",
    "Percentage_of_Hot_Region",
    "Generated_Aligned_Addresses",
    "Address_Alignment_Unit",
    "Request_Size_Distribution",
    "Average_Request_Size",
    "Variance_Request_Size",
    "Seed",
    "Average_No_of_Reqs_in_Queue",
    "Bandwidth",
    "Stop_Time",
    "Total_Requests_To_Generate",
];

/// A trace-based flow's own parameters (`IO_Flow_Parameter_Set_Trace_Based.cpp`).
const TRACE: &[&str] = &[
    "File_Path",
    "Percentage_To_Be_Executed",
    "Relay_Count",
    "Time_Unit",
];

/// Maps a workload file (name, text) onto the workload, trace and host keys.
pub(super) fn flows(
    b: &mut Builder,
    (file, text_): (&str, &str),
    facts: &DeviceFacts,
) -> Result<(), ImportError> {
    let doc = parse(file, text_)?;
    let (si, fi, f) = choose_flow(b, &doc, file)?;
    let synthetic = f.tag_name().name() == "IO_Flow_Parameter_Set_Synthetic";
    let own = if synthetic { SYNTHETIC } else { TRACE };
    let known: Vec<&str> = FLOW.iter().chain(own).copied().collect();
    let parent = format!("IO_Scenario[{si}]/{}[{fi}]", f.tag_name().name());
    let mut unknown = Vec::new();
    let set = &read_set(&doc, f, file, &parent, &known, &[], &mut unknown);
    b.out.unknown.extend(unknown);

    common_flow(b, set, facts)?;
    if !synthetic {
        return trace_flow(b, set, file);
    }
    address_distribution(b, set, file)?;
    working_set(b, set, facts)?;
    let sizes = request_sizes(b, set)?;
    alignment(b, set, &sizes)?;
    arrivals(b, set, sizes.size)?;
    run_length(b, set)
}

/// The first flow of the first scenario; later flows are listed as not mapped, other
/// elements as unknown. Returns the scenario's and the flow's 1-based positions and the flow.
fn choose_flow<'a, 'i>(
    b: &mut Builder,
    doc: &'a roxmltree::Document<'i>,
    file: &str,
) -> Result<(usize, usize, roxmltree::Node<'a, 'i>), ImportError> {
    let root = doc.root_element();
    if root.tag_name().name() != "MQSim_IO_Scenarios" {
        return Err(ImportError::Root {
            file: file.to_string(),
            line: line_of(doc, root),
            found: root.tag_name().name().to_string(),
            expected: "MQSim_IO_Scenarios",
            what: "MQSim's workload file",
        });
    }
    let mut chosen = None;
    for (si, s) in elements(root).enumerate() {
        if s.tag_name().name() != "IO_Scenario" {
            b.out
                .unknown
                .push((file.into(), s.tag_name().name().into(), line_of(doc, s)));
            continue;
        }
        for (fi, f) in elements(s).enumerate() {
            let name = f.tag_name().name();
            if !matches!(
                name,
                "IO_Flow_Parameter_Set_Synthetic" | "IO_Flow_Parameter_Set_Trace_Based"
            ) {
                b.out
                    .unknown
                    .push((file.into(), format!("IO_Scenario/{name}"), line_of(doc, f)));
                continue;
            }
            if chosen.is_none() {
                chosen = Some((si + 1, fi + 1, f));
            } else {
                b.out.params.push(Param {
                    path: format!("IO_Scenario[{}]/{name}[{}]", si + 1, fi + 1),
                    value: String::new(),
                    line: line_of(doc, f),
                    file: file.into(),
                    fate: Fate::NotMapped(
                        "ssdlab runs one flow per run: only the first flow of the first scenario is imported (import another by editing the file)".into(),
                    ),
                    keys: Vec::new(),
                });
            }
        }
    }
    let Some((si, fi, f)) = chosen else {
        return Err(ImportError::Missing {
            file: file.to_string(),
            what: "IO_Flow_Parameter_Set_Synthetic or IO_Flow_Parameter_Set_Trace_Based flow",
        });
    };
    Ok((si, fi, f))
}

/// Parameters both kinds of flow have: priority, caching mode, resources, occupancy.
fn common_flow(b: &mut Builder, set: &Set, facts: &DeviceFacts) -> Result<(), ImportError> {
    b.note(
        set,
        "Priority_Class",
        Fate::NotMapped("one flow: no priorities between flows".into()),
        &[],
    );
    match text(set, "Device_Level_Data_Caching_Mode", "WRITE_CACHE").to_ascii_uppercase().as_str() {
        "WRITE_CACHE" => b.note(set, "Device_Level_Data_Caching_Mode", Fate::Mapped, &["buffer.name"]),
        "TURNED_OFF" => {
            b.set("buffer.name", "none");
            b.note(set, "Device_Level_Data_Caching_Mode", Fate::Mapped, &["buffer.name"]);
        }
        other => b.note(
            set,
            "Device_Level_Data_Caching_Mode",
            Fate::NotMapped(format!(
                "{other}: ssdlab's buffer caches writes only (reads hit buffered writes); kept as a write cache"
            )),
            &[],
        ),
    }
    for n in ["Channel_IDs", "Chip_IDs", "Die_IDs", "Plane_IDs"] {
        b.note(
            set,
            n,
            Fate::NotMapped(
                "the flow uses every channel, chip, die and plane in ssdlab; a subset cannot be assigned".into(),
            ),
            &[],
        );
    }
    let occupancy: f64 = num(set, "Initial_Occupancy_Percentage", 50.0)?;
    if facts.preconditioning && occupancy > 0.0 {
        b.set("top.precondition", "fill");
        b.set("top.fill_percent", occupancy);
        b.note(
            set,
            "Initial_Occupancy_Percentage",
            Fate::Approximated(
                "precondition = \"fill\" writes that share of the logical space sequentially; MQSim fills following the flow's address distribution".into(),
            ),
            &["precondition", "fill_percent"],
        );
    } else {
        b.note(
            set,
            "Initial_Occupancy_Percentage",
            Fate::NotMapped(
                "MQSim applies it only with Enabled_Preconditioning = true, which is off".into(),
            ),
            &[],
        );
    }
    Ok(())
}

/// A trace-based flow: the file, its time unit, the share and the replays.
fn trace_flow(b: &mut Builder, set: &Set, file: &str) -> Result<(), ImportError> {
    let path = text(set, "File_Path", "");
    b.set("trace.path", path);
    b.set("trace.format", "ascii");
    b.set("trace.fit", "wrap");
    b.note(
        set,
        "File_Path",
        Fate::Approximated(
            "read as ssdlab's ascii format (MQSim's `time device lba sectors op` lines), relative to where ssdlab runs; requests past the end wrap as MQSim folds them".into(),
        ),
        &["trace.path", "trace.format", "trace.fit"],
    );
    let unit = text(set, "Time_Unit", "NANOSECOND").to_ascii_uppercase();
    let speedup = match unit.as_str() {
        "PICOSECOND" => 1000.0,
        "NANOSECOND" => 1.0,
        "MICROSECOND" => 0.001,
        other => {
            return Err(ImportError::Value {
                file: file.to_string(),
                line: Some(set.get("Time_Unit").map_or(0, |f| f.line)),
                name: "Time_Unit".into(),
                value: format!("{other:?}"),
                expected: "PICOSECOND, NANOSECOND or MICROSECOND".into(),
            });
        }
    };
    if speedup == 1.0 {
        b.note(set, "Time_Unit", Fate::Mapped, &[]);
    } else {
        b.set("host.speedup", speedup);
        b.note(
            set,
            "Time_Unit",
            Fate::Approximated(format!(
                "ssdlab reads times in ns: host.speedup = {speedup} rescales the gaps"
            )),
            &["host.speedup"],
        );
    }
    let pct: f64 = num(set, "Percentage_To_Be_Executed", 100.0)?;
    b.note(
        set,
        "Percentage_To_Be_Executed",
        if pct >= 100.0 {
            Fate::Mapped
        } else {
            Fate::NotMapped(format!(
                "{pct}% of the trace: set workload.requests to that share of its requests"
            ))
        },
        &[],
    );
    let relay: u64 = num(set, "Relay_Count", 1)?;
    b.note(
        set,
        "Relay_Count",
        if relay <= 1 {
            Fate::Mapped
        } else {
            Fate::NotMapped(format!("{relay} replays: ssdlab replays a trace once"))
        },
        &[],
    );
    Ok(())
}

/// A synthetic flow's address distribution and read share.
fn address_distribution(b: &mut Builder, set: &Set, file: &str) -> Result<(), ImportError> {
    let read: f64 = num(set, "Read_Percentage", 50.0)?;
    let dist = text(set, "Address_Distribution", "RANDOM_UNIFORM").to_ascii_uppercase();
    let hot: f64 = num(set, "Percentage_of_Hot_Region", 0.0)?;
    let (kind, fate) = match (dist.as_str(), read) {
        ("STREAMING", r) if r <= 0.0 => ("seq-write", Fate::Mapped),
        ("STREAMING", r) if r >= 100.0 => ("seq-read", Fate::Mapped),
        ("STREAMING", _) => (
            "mixed",
            Fate::Approximated(
                "ssdlab has no mixed sequential generator: uniform random reads and writes".into(),
            ),
        ),
        ("RANDOM_UNIFORM", r) if r <= 0.0 => ("random-write", Fate::Mapped),
        ("RANDOM_UNIFORM", r) if r >= 100.0 => ("random-read", Fate::Mapped),
        ("RANDOM_UNIFORM", _) => ("mixed", Fate::Mapped),
        ("RANDOM_HOTCOLD", _) => {
            // IO_Flow_Synthetic: with probability = the hot share an address falls after
            // the first (hot share) of the span, otherwise inside it.
            b.set("workload.hot_span_percent", hot);
            b.set("workload.hot_access_percent", 100.0 - hot);
            (
                "hot-cold",
                Fate::Approximated(format!(
                    "hot-cold: MQSim sends 1 − {hot}% of the accesses to the first {hot}% of the span"
                )),
            )
        }
        (other, _) => {
            return Err(ImportError::Value {
                file: file.to_string(),
                line: None,
                name: "Address_Distribution".into(),
                value: format!("{other:?}"),
                expected: "STREAMING, RANDOM_UNIFORM or RANDOM_HOTCOLD".into(),
            });
        }
    };
    b.set("workload.kind", kind);
    if kind != "seq-write" && kind != "random-write" && kind != "seq-read" && kind != "random-read"
    {
        b.set("workload.read_percent", read);
    }
    b.note(set, "Address_Distribution", fate, &["workload.kind"]);
    b.note(
        set,
        "Read_Percentage",
        Fate::Mapped,
        &["workload.kind", "workload.read_percent"],
    );
    b.note(
        set,
        "Percentage_of_Hot_Region",
        if dist == "RANDOM_HOTCOLD" {
            Fate::Approximated("see Address_Distribution".into())
        } else {
            Fate::NotMapped("used only with RANDOM_HOTCOLD".into())
        },
        &["workload.hot_span_percent"],
    );
    Ok(())
}

/// The working set: a share of the logical space, from address 0.
fn working_set(b: &mut Builder, set: &Set, facts: &DeviceFacts) -> Result<(), ImportError> {
    let ws: f64 = num(set, "Working_Set_Percentage", 85.0)?;
    let page = b
        .out
        .sections
        .iter()
        .find(|(s, _)| s == "device")
        .and_then(|(_, k)| k.iter().find(|(k, _)| k == "page_size"))
        .and_then(|(_, v)| v.as_str())
        .and_then(|s| s.parse::<crate::units::Size>().ok())
        .map_or(4096, |s| s.0);
    let span =
        ((facts.logical_bytes as f64 * ws.clamp(0.0, 100.0) / 100.0) as u64 / page).max(1) * page;
    b.set("workload.span", crate::units::Size(span).to_string());
    b.note(
        set,
        "Working_Set_Percentage",
        Fate::Approximated(format!(
            "{ws}% of the logical space, in whole pages, from address 0"
        )),
        &["workload.span"],
    );
    Ok(())
}

/// Request sizes as MQSim gives them, in sectors, and ssdlab's (smallest) size in bytes.
struct Sizes {
    avg: u64,
    var: u64,
    size_dist: String,
    size: u64,
}

/// Request sizes: fixed, or normal as uniform over the same mean and variance.
fn request_sizes(b: &mut Builder, set: &Set) -> Result<Sizes, ImportError> {
    let avg: u64 = num(set, "Average_Request_Size", 8)?;
    let var: u64 = num(set, "Variance_Request_Size", 0)?;
    let size_dist = text(set, "Request_Size_Distribution", "FIXED").to_ascii_uppercase();
    let size = avg.max(1) * SECTOR_BYTES;
    b.set("workload.size", crate::units::Size(size).to_string());
    if size_dist == "NORMAL" && var > 0 {
        // Uniform over mean ± √3σ has the normal's mean and variance.
        let sd = (var as f64).sqrt() * 3f64.sqrt();
        let lo = ((avg as f64 - sd).max(1.0)) as u64 * SECTOR_BYTES;
        let hi = (avg as f64 + sd).ceil() as u64 * SECTOR_BYTES;
        b.set("workload.size", crate::units::Size(lo).to_string());
        b.set("workload.size_max", crate::units::Size(hi).to_string());
        b.note(
            set,
            "Request_Size_Distribution",
            Fate::Approximated(
                "NORMAL: uniform sizes over mean ± √3·σ (the same mean and variance), in sectors"
                    .into(),
            ),
            &["workload.size", "workload.size_max"],
        );
        b.note(
            set,
            "Variance_Request_Size",
            Fate::Approximated("see Request_Size_Distribution".into()),
            &["workload.size_max"],
        );
    } else {
        b.note(
            set,
            "Request_Size_Distribution",
            Fate::Mapped,
            &["workload.size"],
        );
        b.note(
            set,
            "Variance_Request_Size",
            Fate::NotMapped("unused with FIXED sizes".into()),
            &[],
        );
    }
    b.note(
        set,
        "Average_Request_Size",
        Fate::Mapped,
        &["workload.size"],
    );
    Ok(Sizes {
        avg,
        var,
        size_dist,
        size,
    })
}

/// Address alignment, to a unit that divides every request size.
fn alignment(b: &mut Builder, set: &Set, sizes: &Sizes) -> Result<(), ImportError> {
    let (avg, var, size_dist) = (sizes.avg, sizes.var, &sizes.size_dist);
    let aligned = flag(set, "Generated_Aligned_Addresses", true);
    let align_sectors: u64 = num(set, "Address_Alignment_Unit", 8)?;
    if aligned {
        // ssdlab's generator places requests on multiples of `align` and needs it to
        // divide every request size; MQSim also aligns requests smaller than the unit
        // (its default: 4 KiB requests on 8 KiB boundaries). Then the largest unit that
        // divides the sizes is used: a superset of MQSim's start addresses.
        let align = align_sectors.max(1);
        let sizes: Vec<u64> = match (size_dist.as_str(), var) {
            ("NORMAL", v) if v > 0 => {
                let sd = (v as f64).sqrt() * 3f64.sqrt();
                vec![
                    ((avg as f64 - sd).max(1.0)) as u64,
                    (avg as f64 + sd).ceil() as u64,
                ]
            }
            _ => vec![avg.max(1)],
        };
        let usable = sizes.iter().fold(align, |g, &x| gcd(g, x));
        b.set(
            "workload.align",
            crate::units::Size(usable * SECTOR_BYTES).to_string(),
        );
        b.note(
            set,
            "Generated_Aligned_Addresses",
            Fate::Mapped,
            &["workload.align"],
        );
        let fate = if usable == align {
            Fate::Mapped
        } else {
            Fate::Approximated(format!(
                "{align} sectors does not divide the request size ({} sectors): ssdlab aligns \
                 to {usable} sectors, the largest unit that does (a superset of MQSim's \
                 start addresses)",
                sizes
                    .iter()
                    .map(|x| x.to_string())
                    .collect::<Vec<_>>()
                    .join("–")
            ))
        };
        b.note(set, "Address_Alignment_Unit", fate, &["workload.align"]);
    } else {
        b.set("workload.align", "512B");
        b.note(
            set,
            "Generated_Aligned_Addresses",
            Fate::Mapped,
            &["workload.align"],
        );
        b.note(
            set,
            "Address_Alignment_Unit",
            Fate::NotMapped("addresses are not aligned".into()),
            &[],
        );
    }
    Ok(())
}

/// The seed and the arrivals: closed loop at a queue depth or open loop at a bandwidth.
fn arrivals(b: &mut Builder, set: &Set, size: u64) -> Result<(), ImportError> {
    let seed: u64 = num(set, "Seed", 123)?;
    b.set("top.seed", seed as i64);
    b.note(set, "Seed", Fate::Mapped, &["seed"]);
    let generator = text(set, "Synthetic_Generator_Type", "BANDWIDTH").to_ascii_uppercase();
    let qd: u64 = num(set, "Average_No_of_Reqs_in_Queue", 2)?;
    if generator == "QUEUE_DEPTH" {
        b.set("host.qd", qd.clamp(1, 512) as i64);
        b.note(set, "Synthetic_Generator_Type", Fate::Mapped, &["host.qd"]);
        b.note(
            set,
            "Average_No_of_Reqs_in_Queue",
            if qd <= 512 {
                Fate::Mapped
            } else {
                Fate::Approximated("ssdlab's queue holds at most 512: host.qd = 512".into())
            },
            &["host.qd"],
        );
        b.note(
            set,
            "Bandwidth",
            Fate::NotMapped("used only by the BANDWIDTH generator".into()),
            &[],
        );
    } else {
        let bw: f64 = num(set, "Bandwidth", 0.0)?;
        if bw > 0.0 {
            let gap = (size as f64 / bw * 1e9).round().max(1.0);
            b.set("workload.mean_gap_ns", gap as i64);
            b.note(
                set,
                "Bandwidth",
                Fate::Approximated(format!(
                    "{bw} B/s of {size}-byte requests: Poisson arrivals {gap} ns apart on average (MQSim spaces them evenly)"
                )),
                &["workload.mean_gap_ns"],
            );
        }
        b.note(
            set,
            "Synthetic_Generator_Type",
            Fate::Approximated("BANDWIDTH: open loop at the flow's bandwidth".into()),
            &["workload.mean_gap_ns"],
        );
        b.note(
            set,
            "Average_No_of_Reqs_in_Queue",
            Fate::NotMapped("used only by the QUEUE_DEPTH generator".into()),
            &[],
        );
    }
    Ok(())
}

/// How long the flow runs: a request count or a stop time.
fn run_length(b: &mut Builder, set: &Set) -> Result<(), ImportError> {
    let total: u64 = num(set, "Total_Requests_To_Generate", 0)?;
    if total > 0 {
        b.set("workload.requests", crate::units::wide_u64::value(total));
        b.note(
            set,
            "Total_Requests_To_Generate",
            Fate::Mapped,
            &["workload.requests"],
        );
        b.note(
            set,
            "Stop_Time",
            Fate::NotMapped(
                "ssdlab stops after a number of requests (Total_Requests_To_Generate)".into(),
            ),
            &[],
        );
    } else {
        b.note(
            set,
            "Total_Requests_To_Generate",
            Fate::NotMapped("0: MQSim runs until Stop_Time".into()),
            &[],
        );
        let stop: u64 = num(set, "Stop_Time", 0)?;
        if stop > 0 {
            // MQSim's flow issues requests until its clock passes Stop_Time; ssdlab's
            // host does the same with host.stop_ns (the requests default, span / size,
            // stays an upper bound).
            b.set("host.stop_ns", crate::units::wide_u64::value(stop));
            b.note(set, "Stop_Time", Fate::Mapped, &["host.stop_ns"]);
        } else {
            b.note(
                set,
                "Stop_Time",
                Fate::NotMapped(
                    "0 with no request count: ssdlab runs workload.requests requests (default: span / size)".into(),
                ),
                &[],
            );
        }
    }
    Ok(())
}
