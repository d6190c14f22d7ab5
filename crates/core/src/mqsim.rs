//! MQSim's XML configurations in ssdlab's terms: `ssdconfig.xml` (an
//! `Execution_Parameter_Set` of host, device and flash parameters) and the workload file
//! (`MQSim_IO_Scenarios` of synthetic or trace-based flows), as MQSim (Tavakkol et al.,
//! FAST 2018; github CMU-SAFARI/MQSim) reads them in `Device_Parameter_Set.cpp`,
//! `Flash_Parameter_Set.cpp`, `Host_Parameter_Set.cpp` and `IO_Flow_Parameter_Set*.cpp`.
//!
//! [`import`] turns them into a TOML configuration for `--config`, and says of every
//! MQSim parameter whether it is mapped exactly, approximated (and how), or cannot be
//! mapped (and why), so a reader knows what the ssdlab run does and does not model.
//! Elements MQSim itself does not read are listed with their line. The XML is parsed with
//! `roxmltree` (a read-only DOM with line and column positions; malformed XML is refused
//! naming the file and line).
//!
//! Device keys the default preset sets and MQSim has no parameter for (pages per program,
//! SLC cache, controller latencies, flush-ahead) are pinned to "off", so the preset leaks
//! nothing into the MQSim device.

use std::fmt::Write as _;

/// What became of one MQSim parameter.
#[derive(Clone, Debug, PartialEq)]
pub enum Fate {
    /// Set exactly.
    Mapped,
    /// Set to the nearest ssdlab equivalent; the text says how.
    Approximated(String),
    /// Not represented; the text says why.
    NotMapped(String),
}

/// One MQSim parameter and what it became.
#[derive(Clone, Debug)]
pub struct Param {
    /// `Device_Parameter_Set/Flash_Channel_Count`.
    pub path: String,
    /// Its text in the file.
    pub value: String,
    /// Line in its file.
    pub line: u32,
    /// The file's name.
    pub file: String,
    /// Mapped, approximated or not.
    pub fate: Fate,
    /// The ssdlab keys it set (`device.channels`).
    pub keys: Vec<String>,
}

/// The result of an import: the configuration and the account of every parameter.
#[derive(Clone, Debug, Default)]
pub struct Import {
    /// Sections in order (`device`, `ftl`, …), each with its keys in order.
    pub sections: Vec<(String, Vec<(String, toml::Value)>)>,
    /// Every MQSim parameter met, in file order.
    pub params: Vec<Param>,
    /// Elements MQSim does not read: (file, path, line).
    pub unknown: Vec<(String, String, u32)>,
    /// Keys not from MQSim, pinned so the default preset leaks nothing.
    pub pinned: Vec<String>,
}

/// A parameter read from the file: value and line.
#[derive(Clone, Debug)]
struct Field {
    value: String,
    line: u32,
}

/// The child elements of a parameter set, by name.
struct Set {
    file: String,
    parent: String,
    fields: Vec<(String, Field)>,
}

impl Set {
    fn get(&self, name: &str) -> Option<&Field> {
        self.fields.iter().find(|(n, _)| n == name).map(|(_, f)| f)
    }
}

/// Parses `text` (named `file` in messages) into a document; malformed XML names the
/// file and line.
fn parse<'a>(file: &str, text: &'a str) -> Result<roxmltree::Document<'a>, String> {
    roxmltree::Document::parse_with_options(
        text,
        roxmltree::ParsingOptions {
            allow_dtd: false,
            ..Default::default()
        },
    )
    .map_err(|e| {
        let p = e.pos();
        format!(
            "{file}: line {}, column {}: malformed XML: {e}",
            p.row, p.col
        )
    })
}

fn line_of(doc: &roxmltree::Document, node: roxmltree::Node) -> u32 {
    doc.text_pos_at(node.range().start).row
}

fn elements<'a, 'i>(
    node: roxmltree::Node<'a, 'i>,
) -> impl Iterator<Item = roxmltree::Node<'a, 'i>> {
    node.children().filter(|c| c.is_element())
}

/// Reads the parameters under `node`, keeping those named in `known` (and the nested
/// sets named in `nested`, which are not parameters) and listing the others as unknown.
fn read_set(
    doc: &roxmltree::Document,
    node: roxmltree::Node,
    file: &str,
    parent: &str,
    known: &[&str],
    nested: &[&str],
    unknown: &mut Vec<(String, String, u32)>,
) -> Set {
    let mut fields = Vec::new();
    for c in elements(node) {
        let name = c.tag_name().name();
        if nested.contains(&name) {
            continue;
        }
        if !known.contains(&name) {
            unknown.push((
                file.to_string(),
                format!("{parent}/{name}"),
                line_of(doc, c),
            ));
            continue;
        }
        fields.push((
            name.to_string(),
            Field {
                value: c.text().unwrap_or("").trim().to_string(),
                line: line_of(doc, c),
            },
        ));
    }
    Set {
        file: file.to_string(),
        parent: parent.to_string(),
        fields,
    }
}

/// The parameters MQSim's `Host_Parameter_Set` reads.
const HOST: &[&str] = &[
    "PCIe_Lane_Bandwidth",
    "PCIe_Lane_Count",
    "SATA_Processing_Delay",
    "Enable_ResponseTime_Logging",
    "ResponseTime_Logging_Period_Length",
];

/// The parameters MQSim's `Device_Parameter_Set` reads. MQSim's parser spells the first
/// suspend time `Prefered_…`; its own ssdconfig.xml spells it `Preferred_…` (which MQSim
/// therefore never reads): both are accepted here.
const DEVICE: &[&str] = &[
    "Seed",
    "Enabled_Preconditioning",
    "Memory_Type",
    "HostInterface_Type",
    "IO_Queue_Depth",
    "Queue_Fetch_Size",
    "Caching_Mechanism",
    "Data_Cache_Sharing_Mode",
    "Data_Cache_Capacity",
    "Data_Cache_DRAM_Row_Size",
    "Data_Cache_DRAM_Data_Rate",
    "Data_Cache_DRAM_Data_Busrt_Size",
    "Data_Cache_DRAM_tRCD",
    "Data_Cache_DRAM_tCL",
    "Data_Cache_DRAM_tRP",
    "Address_Mapping",
    "Ideal_Mapping_Table",
    "CMT_Capacity",
    "CMT_Sharing_Mode",
    "Plane_Allocation_Scheme",
    "Transaction_Scheduling_Policy",
    "Overprovisioning_Ratio",
    "GC_Exec_Threshold",
    "GC_Block_Selection_Policy",
    "Use_Copyback_for_GC",
    "Preemptible_GC_Enabled",
    "GC_Hard_Threshold",
    "Dynamic_Wearleveling_Enabled",
    "Static_Wearleveling_Enabled",
    "Static_Wearleveling_Threshold",
    "Prefered_suspend_erase_time_for_read",
    "Preferred_suspend_erase_time_for_read",
    "Preferred_suspend_erase_time_for_write",
    "Preferred_suspend_write_time_for_read",
    "Flash_Channel_Count",
    "Flash_Channel_Width",
    "Channel_Transfer_Rate",
    "Chip_No_Per_Channel",
    "Flash_Comm_Protocol",
];

/// The parameters MQSim's `Flash_Parameter_Set` reads.
const FLASH: &[&str] = &[
    "Flash_Technology",
    "CMD_Suspension_Support",
    "Page_Read_Latency_LSB",
    "Page_Read_Latency_CSB",
    "Page_Read_Latency_MSB",
    "Page_Program_Latency_LSB",
    "Page_Program_Latency_CSB",
    "Page_Program_Latency_MSB",
    "Block_Erase_Latency",
    "Block_PE_Cycles_Limit",
    "Suspend_Erase_Time",
    "Suspend_Program_Time",
    "Die_No_Per_Chip",
    "Plane_No_Per_Die",
    "Block_No_Per_Plane",
    "Page_No_Per_Block",
    "Page_Capacity",
    "Page_Metadat_Capacity",
];

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

/// MQSim's sector (`SECTOR_SIZE_IN_BYTE`).
const SECTOR_BYTES: u64 = 512;

/// Builds the import step by step.
struct Builder {
    out: Import,
}

impl Builder {
    fn set(&mut self, key: &str, v: impl Into<toml::Value>) {
        let (section, k) = key.split_once('.').expect("dotted key");
        let v = v.into();
        let i = match self.out.sections.iter().position(|(s, _)| s == section) {
            Some(i) => i,
            None => {
                self.out.sections.push((section.to_string(), Vec::new()));
                self.out.sections.len() - 1
            }
        };
        let keys = &mut self.out.sections[i].1;
        match keys.iter_mut().find(|(kk, _)| kk == k) {
            Some(e) => e.1 = v,
            None => keys.push((k.to_string(), v)),
        }
    }

    fn note(&mut self, set: &Set, name: &str, fate: Fate, keys: &[&str]) {
        let Some(f) = set.get(name) else { return };
        self.out.params.push(Param {
            path: format!("{}/{name}", set.parent),
            value: f.value.clone(),
            line: f.line,
            file: set.file.clone(),
            fate,
            keys: keys.iter().map(|k| k.to_string()).collect(),
        });
    }
}

fn num<T: std::str::FromStr>(set: &Set, name: &str, default: T) -> Result<T, String> {
    match set.get(name) {
        None => Ok(default),
        Some(f) => f.value.parse().map_err(|_| {
            format!(
                "{}: line {}: {}/{name} = {:?}: expected a number",
                set.file, f.line, set.parent, f.value
            )
        }),
    }
}

fn text<'a>(set: &'a Set, name: &str, default: &'a str) -> &'a str {
    set.get(name).map_or(default, |f| f.value.as_str())
}

fn flag(set: &Set, name: &str, default: bool) -> bool {
    set.get(name)
        .map_or(default, |f| f.value.eq_ignore_ascii_case("true"))
}

/// What the device import leaves for the workload's: the logical size and the queue.
struct DeviceFacts {
    logical_bytes: u64,
    preconditioning: bool,
}

/// Imports `ssdconfig` (name, text) and optionally a workload file (name, text).
pub fn import(ssdconfig: (&str, &str), workload: Option<(&str, &str)>) -> Result<Import, String> {
    let mut b = Builder {
        out: Import::default(),
    };
    let facts = device(&mut b, ssdconfig)?;
    if let Some(w) = workload {
        flows(&mut b, w, &facts)?;
    }
    // In the order of the files, as a reader compares them with the XML.
    let first = ssdconfig.0.to_string();
    b.out.params.sort_by_key(|p| (p.file != first, p.line));
    Ok(b.out)
}

fn device(b: &mut Builder, (file, xml): (&str, &str)) -> Result<DeviceFacts, String> {
    let doc = parse(file, xml)?;
    let root = doc.root_element();
    if root.tag_name().name() != "Execution_Parameter_Set" {
        return Err(format!(
            "{file}: line {}: the root element is <{}>; expected <Execution_Parameter_Set> (MQSim's ssdconfig.xml)",
            line_of(&doc, root),
            root.tag_name().name()
        ));
    }
    let mut unknown = Vec::new();
    let mut host_node = None;
    let mut dev_node = None;
    for c in elements(root) {
        match c.tag_name().name() {
            "Host_Parameter_Set" => host_node = Some(c),
            "Device_Parameter_Set" => dev_node = Some(c),
            n => unknown.push((file.to_string(), n.to_string(), line_of(&doc, c))),
        }
    }
    let dev_node = dev_node.ok_or_else(|| {
        format!("{file}: no <Device_Parameter_Set> under <Execution_Parameter_Set>")
    })?;
    let host =
        host_node.map(|n| read_set(&doc, n, file, "Host_Parameter_Set", HOST, &[], &mut unknown));
    let dev = read_set(
        &doc,
        dev_node,
        file,
        "Device_Parameter_Set",
        DEVICE,
        &["Flash_Parameter_Set"],
        &mut unknown,
    );
    let flash_node = elements(dev_node).find(|c| c.tag_name().name() == "Flash_Parameter_Set");
    let flash = match flash_node {
        Some(n) => read_set(
            &doc,
            n,
            file,
            "Device_Parameter_Set/Flash_Parameter_Set",
            FLASH,
            &[],
            &mut unknown,
        ),
        None => Set {
            file: file.to_string(),
            parent: "Device_Parameter_Set/Flash_Parameter_Set".into(),
            fields: Vec::new(),
        },
    };
    b.out.unknown.extend(unknown);

    // Defaults are MQSim's own (the static initialisers of the parameter sets).
    b.set(
        "device.description",
        format!("imported from MQSim {file} by ssdlab import-mqsim"),
    );
    if text(&dev, "Memory_Type", "FLASH") != "FLASH" {
        b.note(
            &dev,
            "Memory_Type",
            Fate::NotMapped("ssdlab models NAND flash only".into()),
            &[],
        );
    } else {
        b.note(&dev, "Memory_Type", Fate::Mapped, &[]);
    }

    // Geometry.
    let tech = text(&flash, "Flash_Technology", "MLC").to_ascii_uppercase();
    let cell = match tech.as_str() {
        "SLC" => "slc",
        "MLC" => "mlc",
        "TLC" => "tlc",
        other => {
            return Err(format!(
                "{}: Flash_Technology = {other:?}: expected SLC, MLC or TLC",
                flash.file
            ));
        }
    };
    b.set("device.cell", cell);
    b.note(&flash, "Flash_Technology", Fate::Mapped, &["device.cell"]);
    let channels: u64 = num(&dev, "Flash_Channel_Count", 8)?;
    let chips: u64 = num(&dev, "Chip_No_Per_Channel", 4)?;
    let dies: u64 = num(&flash, "Die_No_Per_Chip", 2)?;
    let planes: u64 = num(&flash, "Plane_No_Per_Die", 2)?;
    let blocks: u64 = num(&flash, "Block_No_Per_Plane", 2048)?;
    let pages: u64 = num(&flash, "Page_No_Per_Block", 256)?;
    let page_bytes: u64 = num(&flash, "Page_Capacity", 8192)?;
    let oob_bytes: u64 = num(&flash, "Page_Metadat_Capacity", 1872)?;
    for (name, v) in [
        ("Flash_Channel_Count", channels),
        ("Chip_No_Per_Channel", chips),
        ("Die_No_Per_Chip", dies),
        ("Plane_No_Per_Die", planes),
        ("Block_No_Per_Plane", blocks),
        ("Page_No_Per_Block", pages),
        ("Page_Capacity", page_bytes),
    ] {
        if v == 0 {
            return Err(format!("{file}: {name} = 0: expected at least 1"));
        }
    }
    b.set("device.channels", channels as i64);
    b.note(
        &dev,
        "Flash_Channel_Count",
        Fate::Mapped,
        &["device.channels"],
    );
    b.set("device.chips_per_channel", chips as i64);
    b.note(
        &dev,
        "Chip_No_Per_Channel",
        Fate::Mapped,
        &["device.chips_per_channel"],
    );
    b.set("device.dies_per_chip", dies as i64);
    b.note(
        &flash,
        "Die_No_Per_Chip",
        Fate::Mapped,
        &["device.dies_per_chip"],
    );
    b.set("device.planes_per_die", planes as i64);
    b.note(
        &flash,
        "Plane_No_Per_Die",
        Fate::Mapped,
        &["device.planes_per_die"],
    );
    b.set(
        "device.page_size",
        crate::units::Size(page_bytes).to_string(),
    );
    b.note(&flash, "Page_Capacity", Fate::Mapped, &["device.page_size"]);
    b.set("device.pages_per_block", pages as i64);
    b.note(
        &flash,
        "Page_No_Per_Block",
        Fate::Mapped,
        &["device.pages_per_block"],
    );
    b.set("device.oob_size", crate::units::Size(oob_bytes).to_string());
    b.note(
        &flash,
        "Page_Metadat_Capacity",
        Fate::Mapped,
        &["device.oob_size"],
    );

    // Capacity: MQSim's logical pages are ⌊physical × (1 − ratio)⌋
    // (Address_Mapping_Unit_Base); ssdlab's over-provisioning is (physical − logical) /
    // logical, and its physical space is rounded up to whole blocks on every plane, so an
    // op_percent a little under the exact ratio gives back MQSim's blocks per plane.
    let ratio: f64 = num(&dev, "Overprovisioning_Ratio", 0.07)?;
    if !(0.0..1.0).contains(&ratio) {
        return Err(format!(
            "{file}: Overprovisioning_Ratio = {ratio}: expected 0 ≤ ratio < 1 (the spare share of the physical space)"
        ));
    }
    let physical_pages = channels * chips * dies * planes * blocks * pages;
    let logical_pages = ((physical_pages as f64) * (1.0 - ratio)) as u64;
    let logical_pages = logical_pages.max(1);
    let exact = (physical_pages - logical_pages) as f64 / logical_pages as f64 * 100.0;
    let op = (exact * 1e4).floor() / 1e4;
    b.set(
        "device.capacity",
        crate::units::Size(logical_pages * page_bytes).to_string(),
    );
    b.set("device.op_percent", op);
    b.note(
        &flash,
        "Block_No_Per_Plane",
        Fate::Approximated(format!(
            "ssdlab derives blocks per plane from capacity and op_percent: {physical_pages} physical pages, {blocks} blocks per plane"
        )),
        &["device.capacity", "device.op_percent"],
    );
    b.note(
        &dev,
        "Overprovisioning_Ratio",
        Fate::Approximated(format!(
            "MQSim's spare share of the physical space: {logical_pages} logical pages = ⌊physical × (1 − {ratio})⌋; op_percent = (physical − logical) / logical = {op} (rounded down so whole blocks round back to {blocks} per plane)"
        )),
        &["device.capacity", "device.op_percent"],
    );

    // Timing: one t_R and one t_PROG per cell in ssdlab.
    let levels: &[&str] = match cell {
        "slc" => &["LSB"],
        "mlc" => &["LSB", "MSB"],
        _ => &["LSB", "CSB", "MSB"],
    };
    for (what, key, default) in [
        ("Read", "device.read_ns", 75_000u64),
        ("Program", "device.program_ns", 750_000u64),
    ] {
        let mut vals = Vec::new();
        for l in levels {
            vals.push(num(&flash, &format!("Page_{what}_Latency_{l}"), default)?);
        }
        let mean = vals.iter().sum::<u64>() / vals.len() as u64;
        b.set(key, mean as i64);
        for l in ["LSB", "CSB", "MSB"] {
            let name = format!("Page_{what}_Latency_{l}");
            let fate = if !levels.contains(&l) {
                Fate::NotMapped(format!("not a page level of {tech} flash"))
            } else if vals.iter().all(|v| *v == vals[0]) {
                Fate::Mapped
            } else {
                Fate::Approximated(format!(
                    "ssdlab has one latency per cell: the mean of the {} levels, {mean} ns",
                    levels.join("/")
                ))
            };
            b.note(&flash, &name, fate, &[key]);
        }
    }
    let erase: u64 = num(&flash, "Block_Erase_Latency", 3_800_000)?;
    b.set("device.erase_ns", erase as i64);
    b.note(
        &flash,
        "Block_Erase_Latency",
        Fate::Mapped,
        &["device.erase_ns"],
    );
    let pe: u64 = num(&flash, "Block_PE_Cycles_Limit", 10_000)?;
    b.set("device.endurance_cycles", pe.max(1) as i64);
    b.note(
        &flash,
        "Block_PE_Cycles_Limit",
        Fate::Mapped,
        &["device.endurance_cycles"],
    );

    // Channels: MQSim's rate is in MT/s over a bus Flash_Channel_Width bytes wide.
    let rate: f64 = num(&dev, "Channel_Transfer_Rate", 300.0)?;
    let width: f64 = num(&dev, "Flash_Channel_Width", 1.0)?;
    b.set("device.channel_mb_s", rate * width);
    b.note(
        &dev,
        "Channel_Transfer_Rate",
        Fate::Mapped,
        &["device.channel_mb_s"],
    );
    b.note(
        &dev,
        "Flash_Channel_Width",
        Fate::Mapped,
        &["device.channel_mb_s"],
    );
    b.note(
        &dev,
        "Flash_Comm_Protocol",
        Fate::Approximated(
            "the protocol's command cycles are not modelled; transfers take page size / channel_mb_s".into(),
        ),
        &[],
    );

    // Host interface.
    let interface = text(&dev, "HostInterface_Type", "NVME").to_ascii_uppercase();
    if let Some(h) = &host {
        let lane: f64 = num(h, "PCIe_Lane_Bandwidth", 1.0)?;
        let lanes: f64 = num(h, "PCIe_Lane_Count", 4.0)?;
        if interface == "NVME" {
            b.set("device.host_link_mb_s", lane * lanes * 1000.0);
            b.note(
                h,
                "PCIe_Lane_Bandwidth",
                Fate::Mapped,
                &["device.host_link_mb_s"],
            );
            b.note(
                h,
                "PCIe_Lane_Count",
                Fate::Mapped,
                &["device.host_link_mb_s"],
            );
            b.note(
                h,
                "SATA_Processing_Delay",
                Fate::NotMapped("used by MQSim's SATA interface only; this device is NVMe".into()),
                &[],
            );
        } else {
            let delay: u64 = num(h, "SATA_Processing_Delay", 400_000)?;
            b.set("device.controller_latency_ns", delay as i64);
            b.note(
                h,
                "SATA_Processing_Delay",
                Fate::Approximated(
                    "SATA's per-command processing delay as a fixed latency on every completion"
                        .into(),
                ),
                &["device.controller_latency_ns"],
            );
            for n in ["PCIe_Lane_Bandwidth", "PCIe_Lane_Count"] {
                b.note(h, n, Fate::NotMapped("the device is SATA".into()), &[]);
            }
        }
        for n in [
            "Enable_ResponseTime_Logging",
            "ResponseTime_Logging_Period_Length",
        ] {
            b.note(
                h,
                n,
                Fate::NotMapped(
                    "an output option, not a model parameter (ssdlab reports throughput over time and latency percentiles in every report)".into(),
                ),
                &[],
            );
        }
    }
    b.note(
        &dev,
        "HostInterface_Type",
        if interface == "NVME" {
            Fate::Approximated(
                "NVMe: one host queue of host.qd commands over the PCIe link; MQSim's per-flow submission queues are not modelled".into(),
            )
        } else {
            Fate::Approximated(
                "SATA: one queue, SATA_Processing_Delay as controller latency; no NCQ limit of 32 is imposed".into(),
            )
        },
        &[],
    );
    for n in ["IO_Queue_Depth", "Queue_Fetch_Size"] {
        b.note(
            &dev,
            n,
            Fate::NotMapped(
                "ssdlab has no submission-queue size or fetch window: the host keeps host.qd commands outstanding and the device takes them all".into(),
            ),
            &[],
        );
    }

    // Data cache.
    let cache_bytes: u64 = num(&dev, "Data_Cache_Capacity", 512 << 20)?;
    let mechanism = text(&dev, "Caching_Mechanism", "ADVANCED").to_ascii_uppercase();
    b.set(
        "device.dram_buffer",
        crate::units::Size(cache_bytes).to_string(),
    );
    b.set("buffer.name", "lru");
    b.set("buffer.size", crate::units::Size(cache_bytes).to_string());
    b.note(
        &dev,
        "Data_Cache_Capacity",
        Fate::Mapped,
        &["device.dram_buffer", "buffer.size"],
    );
    b.note(
        &dev,
        "Caching_Mechanism",
        Fate::Approximated(format!(
            "{mechanism}: ssdlab's page LRU write buffer; MQSim's sector bitmaps and its eager write-back of the first write of a page each second are not modelled (docs/mqsim.md)"
        )),
        &["buffer.name"],
    );
    let data_rate: f64 = num(&dev, "Data_Cache_DRAM_Data_Rate", 800.0)?;
    let burst: f64 = num(&dev, "Data_Cache_DRAM_Data_Busrt_Size", 4.0)?;
    // estimate_dram_access_time: burst bytes per half transfer time of 1 / data rate.
    let dram_mb_s = data_rate * burst * 2.0;
    b.set("buffer.dram_mb_s", dram_mb_s);
    for n in [
        "Data_Cache_DRAM_Data_Rate",
        "Data_Cache_DRAM_Data_Busrt_Size",
    ] {
        b.note(
            &dev,
            n,
            Fate::Approximated(format!(
                "DDR: Data_Rate × burst bytes × 2 = {dram_mb_s} MB/s; MQSim moves a request's sectors, ssdlab copies whole pages at this rate"
            )),
            &["buffer.dram_mb_s"],
        );
    }
    for n in [
        "Data_Cache_DRAM_Row_Size",
        "Data_Cache_DRAM_tRCD",
        "Data_Cache_DRAM_tCL",
        "Data_Cache_DRAM_tRP",
    ] {
        b.note(
            &dev,
            n,
            Fate::NotMapped(
                "DRAM rows and their activation times are not modelled (only the copy rate)".into(),
            ),
            &[],
        );
    }
    for n in ["Data_Cache_Sharing_Mode", "CMT_Sharing_Mode"] {
        b.note(
            &dev,
            n,
            Fate::NotMapped("ssdlab runs one flow: nothing is shared between flows".into()),
            &[],
        );
    }

    // Mapping.
    let mapping = text(&dev, "Address_Mapping", "PAGE_LEVEL").to_ascii_uppercase();
    let ideal = flag(&dev, "Ideal_Mapping_Table", false);
    let cmt_bytes: u64 = num(&dev, "CMT_Capacity", 2 << 20)?;
    if mapping != "PAGE_LEVEL" {
        return Err(format!(
            "{file}: Address_Mapping = {mapping:?}: only PAGE_LEVEL is imported (MQSim's HYBRID mapping is unfinished in MQSim itself)"
        ));
    }
    let dftl = !ideal;
    if ideal {
        b.set("ftl.name", "page");
        b.note(&dev, "Address_Mapping", Fate::Mapped, &["ftl.name"]);
        b.note(&dev, "Ideal_Mapping_Table", Fate::Mapped, &["ftl.name"]);
        b.note(
            &dev,
            "CMT_Capacity",
            Fate::NotMapped("the ideal mapping table keeps the whole map in DRAM".into()),
            &[],
        );
    } else {
        // Address_Mapping_Unit_Page_Level: an entry is ⌈(2·⌈log2 physical pages⌉ +
        // sectors per page) / 8⌉ bytes, so the CMT holds CMT_Capacity / that entries.
        let bits = 64 - (physical_pages.max(2) - 1).leading_zeros() as u64;
        let entry_bytes = (2 * bits + page_bytes / SECTOR_BYTES).div_ceil(8);
        let entries = (cmt_bytes / entry_bytes).max(1);
        b.set("ftl.name", "dftl");
        b.set("ftl.dftl.cmt_entries", entries as i64);
        b.set("ftl.dftl.cmt_policy", "lru");
        b.set("ftl.dftl.cmt_start", "cold");
        b.note(
            &dev,
            "Address_Mapping",
            Fate::Approximated(
                "PAGE_LEVEL with a cached mapping table: DFTL, started cold (MQSim writes the whole map to flash and starts with an empty CMT); translation reads per miss as the DFTL paper (set ftl.dftl.coalesce_misses = true for MQSim's shared reads)".into(),
            ),
            &["ftl.name", "ftl.dftl.cmt_start"],
        );
        b.note(&dev, "Ideal_Mapping_Table", Fate::Mapped, &["ftl.name"]);
        b.note(
            &dev,
            "CMT_Capacity",
            Fate::Approximated(format!(
                "bytes to entries: {cmt_bytes} B / {entry_bytes} B per entry (⌈(2 × {bits} + {}) / 8⌉) = {entries} entries, replaced LRU",
                page_bytes / SECTOR_BYTES
            )),
            &["ftl.dftl.cmt_entries", "ftl.dftl.cmt_policy"],
        );
    }
    b.note(
        &dev,
        "Plane_Allocation_Scheme",
        Fate::Approximated(format!(
            "{}: ssdlab stripes consecutive writes channel first over every plane (ftl.channel_placement = \"striped\"); MQSim's static allocation by address is not modelled",
            text(&dev, "Plane_Allocation_Scheme", "CWDP")
        )),
        &["ftl.channel_placement"],
    );
    b.set("ftl.channel_placement", "striped");
    b.note(
        &dev,
        "Transaction_Scheduling_Policy",
        Fate::NotMapped(
            "ssdlab places operations in request order, busy-until per die; MQSim's out-of-order priority scheduling is not modelled".into(),
        ),
        &[],
    );

    // Garbage collection and wear leveling.
    let gc_exec: f64 = num(&dev, "GC_Exec_Threshold", 0.05)?;
    let low = ((gc_exec * blocks as f64).ceil() as i64).max(1);
    b.set("ftl.gc_low_free_blocks", low);
    b.set("ftl.gc_high_free_blocks", low + 1);
    b.note(
        &dev,
        "GC_Exec_Threshold",
        Fate::Approximated(format!(
            "GC starts when a plane's free blocks fall below {gc_exec} × {blocks} = {low} and, as MQSim's collects one block at a time, stops at {}",
            low + 1
        )),
        &["ftl.gc_low_free_blocks", "ftl.gc_high_free_blocks"],
    );
    b.note(
        &dev,
        "GC_Hard_Threshold",
        Fate::NotMapped(
            "only used by MQSim's preemptible GC to stop preempting; ssdlab's preemptive schedule has no hard threshold".into(),
        ),
        &[],
    );
    let policy = text(&dev, "GC_Block_Selection_Policy", "GREEDY").to_ascii_uppercase();
    // GC_and_WL_Unit_Page_Level: RGA samples log2(blocks per plane) blocks.
    let rga = ((blocks as f64).log2() as i64).clamp(1, 64);
    let (gc, d, fate) = match policy.as_str() {
        "GREEDY" => ("greedy", None, Fate::Mapped),
        "FIFO" => ("fifo", None, Fate::Mapped),
        "RGA" => (
            "d-choices",
            Some(rga),
            Fate::Approximated(format!(
                "randomized greedy over log2({blocks}) = {rga} sampled blocks: d-choices with gc_d = {rga}"
            )),
        ),
        "RANDOM" | "RANDOM_P" | "RANDOM_PP" => (
            "d-choices",
            Some(1),
            Fate::Approximated(
                "a random victim: d-choices with one sample (MQSim's _P/_PP variants' filters are not modelled)".into(),
            ),
        ),
        other => {
            return Err(format!(
                "{file}: GC_Block_Selection_Policy = {other:?}: expected GREEDY, RGA, RANDOM, RANDOM_P, RANDOM_PP or FIFO"
            ));
        }
    };
    b.set("ftl.gc", gc);
    if let Some(d) = d {
        b.set("ftl.gc_d", d);
    }
    b.note(
        &dev,
        "GC_Block_Selection_Policy",
        fate,
        &["ftl.gc", "ftl.gc_d"],
    );
    let copyback = flag(&dev, "Use_Copyback_for_GC", false);
    b.set("device.copyback", copyback);
    b.note(
        &dev,
        "Use_Copyback_for_GC",
        Fate::Mapped,
        &["device.copyback"],
    );
    let preempt = flag(&dev, "Preemptible_GC_Enabled", true);
    if preempt {
        b.set("ftl.gc_schedule", "preemptive");
        let susp_p: u64 = num(&flash, "Suspend_Program_Time", 100_000)?;
        let susp_e: u64 = num(&flash, "Suspend_Erase_Time", 700_000)?;
        b.set("ftl.suspend.program_ns", susp_p as i64);
        b.set("ftl.suspend.erase_ns", susp_e as i64);
        b.note(
            &dev,
            "Preemptible_GC_Enabled",
            Fate::Approximated(
                "ftl.gc_schedule = \"preemptive\": host operations suspend GC programs and erases"
                    .into(),
            ),
            &["ftl.gc_schedule"],
        );
        b.note(
            &flash,
            "Suspend_Program_Time",
            Fate::Mapped,
            &["ftl.suspend.program_ns"],
        );
        b.note(
            &flash,
            "Suspend_Erase_Time",
            Fate::Mapped,
            &["ftl.suspend.erase_ns"],
        );
    } else {
        b.set("ftl.gc_schedule", "foreground");
        b.note(
            &dev,
            "Preemptible_GC_Enabled",
            Fate::Mapped,
            &["ftl.gc_schedule"],
        );
        for n in ["Suspend_Program_Time", "Suspend_Erase_Time"] {
            b.note(
                &flash,
                n,
                Fate::NotMapped(
                    "ssdlab suspends only GC operations, with preemptive GC, which is off here"
                        .into(),
                ),
                &[],
            );
        }
    }
    b.note(
        &flash,
        "CMD_Suspension_Support",
        Fate::NotMapped(
            "host operations are not suspended; ssdlab suspends only GC under gc_schedule = \"preemptive\"".into(),
        ),
        &[],
    );
    for n in [
        "Prefered_suspend_erase_time_for_read",
        "Preferred_suspend_erase_time_for_read",
        "Preferred_suspend_erase_time_for_write",
        "Preferred_suspend_write_time_for_read",
    ] {
        let why = if n == "Preferred_suspend_erase_time_for_read" {
            "MQSim's parser reads this as Prefered_… (one r) and so ignores this spelling; ssdlab has no suspension preferences either"
        } else {
            "ssdlab has no suspension preferences of the scheduler"
        };
        b.note(&dev, n, Fate::NotMapped(why.into()), &[]);
    }
    let dyn_wl = flag(&dev, "Dynamic_Wearleveling_Enabled", true);
    b.set("ftl.dynamic_wl", dyn_wl);
    b.note(
        &dev,
        "Dynamic_Wearleveling_Enabled",
        Fate::Mapped,
        &["ftl.dynamic_wl"],
    );
    let static_wl = flag(&dev, "Static_Wearleveling_Enabled", true);
    let threshold: u64 = num(&dev, "Static_Wearleveling_Threshold", 100)?;
    if dftl && static_wl {
        for n in [
            "Static_Wearleveling_Enabled",
            "Static_Wearleveling_Threshold",
        ] {
            b.note(
                &dev,
                n,
                Fate::NotMapped("ssdlab's DFTL has no static wear leveling".into()),
                &[],
            );
        }
    } else {
        b.set(
            "ftl.static_wl_threshold",
            if static_wl {
                threshold.max(1) as i64
            } else {
                0
            },
        );
        b.note(
            &dev,
            "Static_Wearleveling_Enabled",
            Fate::Mapped,
            &["ftl.static_wl_threshold"],
        );
        b.note(
            &dev,
            "Static_Wearleveling_Threshold",
            Fate::Mapped,
            &["ftl.static_wl_threshold"],
        );
    }

    // Preconditioning and the seed.
    let precondition = flag(&dev, "Enabled_Preconditioning", true);
    b.note(
        &dev,
        "Enabled_Preconditioning",
        if precondition {
            Fate::Approximated(
                "MQSim writes each flow's Initial_Occupancy_Percentage first: precondition = \"fill\" with fill_percent (set from the workload file)".into(),
            )
        } else {
            Fate::Mapped
        },
        &["precondition"],
    );
    let seed: u64 = num(&dev, "Seed", 123)?;
    b.set("top.seed", seed as i64);
    b.note(&dev, "Seed", Fate::Approximated("ssdlab has one seed for every random choice (a synthetic flow's Seed, when imported, replaces it)".into()), &["seed"]);

    // Not MQSim parameters: pinned so the default preset leaks nothing (docs/mqsim.md).
    for (k, v) in [
        ("device.pages_per_program", toml::Value::Integer(1)),
        ("device.slc_cache_percent", toml::Value::Float(0.0)),
        ("device.controller_command_ns", toml::Value::Integer(0)),
        ("buffer.flush_ahead_pages", toml::Value::Integer(0)),
    ] {
        b.set(k, v);
        b.out.pinned.push(k.to_string());
    }
    if interface == "NVME" {
        b.set("device.controller_latency_ns", 0);
        b.out.pinned.push("device.controller_latency_ns".into());
    }
    Ok(DeviceFacts {
        logical_bytes: logical_pages * page_bytes,
        preconditioning: precondition,
    })
}

fn flows(b: &mut Builder, (file, text_): (&str, &str), facts: &DeviceFacts) -> Result<(), String> {
    let doc = parse(file, text_)?;
    let root = doc.root_element();
    if root.tag_name().name() != "MQSim_IO_Scenarios" {
        return Err(format!(
            "{file}: line {}: the root element is <{}>; expected <MQSim_IO_Scenarios> (MQSim's workload file)",
            line_of(&doc, root),
            root.tag_name().name()
        ));
    }
    let mut chosen = None;
    for (si, s) in elements(root).enumerate() {
        if s.tag_name().name() != "IO_Scenario" {
            b.out
                .unknown
                .push((file.into(), s.tag_name().name().into(), line_of(&doc, s)));
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
                    .push((file.into(), format!("IO_Scenario/{name}"), line_of(&doc, f)));
                continue;
            }
            if chosen.is_none() {
                chosen = Some((si + 1, fi + 1, f));
            } else {
                b.out.params.push(Param {
                    path: format!("IO_Scenario[{}]/{name}[{}]", si + 1, fi + 1),
                    value: String::new(),
                    line: line_of(&doc, f),
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
        return Err(format!(
            "{file}: no IO_Flow_Parameter_Set_Synthetic or IO_Flow_Parameter_Set_Trace_Based flow"
        ));
    };
    let synthetic = f.tag_name().name() == "IO_Flow_Parameter_Set_Synthetic";
    let own = if synthetic { SYNTHETIC } else { TRACE };
    let known: Vec<&str> = FLOW.iter().chain(own).copied().collect();
    let parent = format!("IO_Scenario[{si}]/{}[{fi}]", f.tag_name().name());
    let mut unknown = Vec::new();
    let set = read_set(&doc, f, file, &parent, &known, &[], &mut unknown);
    b.out.unknown.extend(unknown);

    // Common flow parameters.
    b.note(
        &set,
        "Priority_Class",
        Fate::NotMapped("one flow: no priorities between flows".into()),
        &[],
    );
    match text(&set, "Device_Level_Data_Caching_Mode", "WRITE_CACHE").to_ascii_uppercase().as_str() {
        "WRITE_CACHE" => b.note(&set, "Device_Level_Data_Caching_Mode", Fate::Mapped, &["buffer.name"]),
        "TURNED_OFF" => {
            b.set("buffer.name", "none");
            b.note(&set, "Device_Level_Data_Caching_Mode", Fate::Mapped, &["buffer.name"]);
        }
        other => b.note(
            &set,
            "Device_Level_Data_Caching_Mode",
            Fate::NotMapped(format!(
                "{other}: ssdlab's buffer caches writes only (reads hit buffered writes); kept as a write cache"
            )),
            &[],
        ),
    }
    for n in ["Channel_IDs", "Chip_IDs", "Die_IDs", "Plane_IDs"] {
        b.note(
            &set,
            n,
            Fate::NotMapped(
                "the flow uses every channel, chip, die and plane in ssdlab; a subset cannot be assigned".into(),
            ),
            &[],
        );
    }
    let occupancy: f64 = num(&set, "Initial_Occupancy_Percentage", 50.0)?;
    if facts.preconditioning && occupancy > 0.0 {
        b.set("top.precondition", "fill");
        b.set("top.fill_percent", occupancy);
        b.note(
            &set,
            "Initial_Occupancy_Percentage",
            Fate::Approximated(
                "precondition = \"fill\" writes that share of the logical space sequentially; MQSim fills following the flow's address distribution".into(),
            ),
            &["precondition", "fill_percent"],
        );
    } else {
        b.note(
            &set,
            "Initial_Occupancy_Percentage",
            Fate::NotMapped(
                "MQSim applies it only with Enabled_Preconditioning = true, which is off".into(),
            ),
            &[],
        );
    }

    if !synthetic {
        let path = text(&set, "File_Path", "");
        b.set("trace.path", path);
        b.set("trace.format", "ascii");
        b.set("trace.fit", "wrap");
        b.note(
            &set,
            "File_Path",
            Fate::Approximated(
                "read as ssdlab's ascii format (MQSim's `time device lba sectors op` lines), relative to where ssdlab runs; requests past the end wrap as MQSim folds them".into(),
            ),
            &["trace.path", "trace.format", "trace.fit"],
        );
        let unit = text(&set, "Time_Unit", "NANOSECOND").to_ascii_uppercase();
        let speedup = match unit.as_str() {
            "PICOSECOND" => 1000.0,
            "NANOSECOND" => 1.0,
            "MICROSECOND" => 0.001,
            other => {
                return Err(format!(
                    "{file}: line {}: Time_Unit = {other:?}: expected PICOSECOND, NANOSECOND or MICROSECOND",
                    set.get("Time_Unit").map_or(0, |f| f.line)
                ));
            }
        };
        if speedup == 1.0 {
            b.note(&set, "Time_Unit", Fate::Mapped, &[]);
        } else {
            b.set("host.speedup", speedup);
            b.note(
                &set,
                "Time_Unit",
                Fate::Approximated(format!(
                    "ssdlab reads times in ns: host.speedup = {speedup} rescales the gaps"
                )),
                &["host.speedup"],
            );
        }
        let pct: f64 = num(&set, "Percentage_To_Be_Executed", 100.0)?;
        b.note(
            &set,
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
        let relay: u64 = num(&set, "Relay_Count", 1)?;
        b.note(
            &set,
            "Relay_Count",
            if relay <= 1 {
                Fate::Mapped
            } else {
                Fate::NotMapped(format!("{relay} replays: ssdlab replays a trace once"))
            },
            &[],
        );
        return Ok(());
    }

    // Synthetic flow.
    let read: f64 = num(&set, "Read_Percentage", 50.0)?;
    let dist = text(&set, "Address_Distribution", "RANDOM_UNIFORM").to_ascii_uppercase();
    let hot: f64 = num(&set, "Percentage_of_Hot_Region", 0.0)?;
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
            return Err(format!(
                "{file}: Address_Distribution = {other:?}: expected STREAMING, RANDOM_UNIFORM or RANDOM_HOTCOLD"
            ));
        }
    };
    b.set("workload.kind", kind);
    if kind != "seq-write" && kind != "random-write" && kind != "seq-read" && kind != "random-read"
    {
        b.set("workload.read_percent", read);
    }
    b.note(&set, "Address_Distribution", fate, &["workload.kind"]);
    b.note(
        &set,
        "Read_Percentage",
        Fate::Mapped,
        &["workload.kind", "workload.read_percent"],
    );
    b.note(
        &set,
        "Percentage_of_Hot_Region",
        if dist == "RANDOM_HOTCOLD" {
            Fate::Approximated("see Address_Distribution".into())
        } else {
            Fate::NotMapped("used only with RANDOM_HOTCOLD".into())
        },
        &["workload.hot_span_percent"],
    );
    let ws: f64 = num(&set, "Working_Set_Percentage", 85.0)?;
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
        &set,
        "Working_Set_Percentage",
        Fate::Approximated(format!(
            "{ws}% of the logical space, in whole pages, from address 0"
        )),
        &["workload.span"],
    );
    let avg: u64 = num(&set, "Average_Request_Size", 8)?;
    let var: u64 = num(&set, "Variance_Request_Size", 0)?;
    let size_dist = text(&set, "Request_Size_Distribution", "FIXED").to_ascii_uppercase();
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
            &set,
            "Request_Size_Distribution",
            Fate::Approximated(
                "NORMAL: uniform sizes over mean ± √3·σ (the same mean and variance), in sectors"
                    .into(),
            ),
            &["workload.size", "workload.size_max"],
        );
        b.note(
            &set,
            "Variance_Request_Size",
            Fate::Approximated("see Request_Size_Distribution".into()),
            &["workload.size_max"],
        );
    } else {
        b.note(
            &set,
            "Request_Size_Distribution",
            Fate::Mapped,
            &["workload.size"],
        );
        b.note(
            &set,
            "Variance_Request_Size",
            Fate::NotMapped("unused with FIXED sizes".into()),
            &[],
        );
    }
    b.note(
        &set,
        "Average_Request_Size",
        Fate::Mapped,
        &["workload.size"],
    );
    let aligned = flag(&set, "Generated_Aligned_Addresses", true);
    let align_sectors: u64 = num(&set, "Address_Alignment_Unit", 8)?;
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
            &set,
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
        b.note(&set, "Address_Alignment_Unit", fate, &["workload.align"]);
    } else {
        b.set("workload.align", "512B");
        b.note(
            &set,
            "Generated_Aligned_Addresses",
            Fate::Mapped,
            &["workload.align"],
        );
        b.note(
            &set,
            "Address_Alignment_Unit",
            Fate::NotMapped("addresses are not aligned".into()),
            &[],
        );
    }
    let seed: u64 = num(&set, "Seed", 123)?;
    b.set("top.seed", seed as i64);
    b.note(&set, "Seed", Fate::Mapped, &["seed"]);
    let generator = text(&set, "Synthetic_Generator_Type", "BANDWIDTH").to_ascii_uppercase();
    let qd: u64 = num(&set, "Average_No_of_Reqs_in_Queue", 2)?;
    if generator == "QUEUE_DEPTH" {
        b.set("host.qd", qd.clamp(1, 512) as i64);
        b.note(&set, "Synthetic_Generator_Type", Fate::Mapped, &["host.qd"]);
        b.note(
            &set,
            "Average_No_of_Reqs_in_Queue",
            if qd <= 512 {
                Fate::Mapped
            } else {
                Fate::Approximated("ssdlab's queue holds at most 512: host.qd = 512".into())
            },
            &["host.qd"],
        );
        b.note(
            &set,
            "Bandwidth",
            Fate::NotMapped("used only by the BANDWIDTH generator".into()),
            &[],
        );
    } else {
        let bw: f64 = num(&set, "Bandwidth", 0.0)?;
        if bw > 0.0 {
            let gap = (size as f64 / bw * 1e9).round().max(1.0);
            b.set("workload.mean_gap_ns", gap as i64);
            b.note(
                &set,
                "Bandwidth",
                Fate::Approximated(format!(
                    "{bw} B/s of {size}-byte requests: Poisson arrivals {gap} ns apart on average (MQSim spaces them evenly)"
                )),
                &["workload.mean_gap_ns"],
            );
        }
        b.note(
            &set,
            "Synthetic_Generator_Type",
            Fate::Approximated("BANDWIDTH: open loop at the flow's bandwidth".into()),
            &["workload.mean_gap_ns"],
        );
        b.note(
            &set,
            "Average_No_of_Reqs_in_Queue",
            Fate::NotMapped("used only by the QUEUE_DEPTH generator".into()),
            &[],
        );
    }
    let total: u64 = num(&set, "Total_Requests_To_Generate", 0)?;
    if total > 0 {
        b.set("workload.requests", crate::units::wide_u64::value(total));
        b.note(
            &set,
            "Total_Requests_To_Generate",
            Fate::Mapped,
            &["workload.requests"],
        );
        b.note(
            &set,
            "Stop_Time",
            Fate::NotMapped(
                "ssdlab stops after a number of requests (Total_Requests_To_Generate)".into(),
            ),
            &[],
        );
    } else {
        b.note(
            &set,
            "Total_Requests_To_Generate",
            Fate::NotMapped("0: MQSim runs until Stop_Time".into()),
            &[],
        );
        let stop: u64 = num(&set, "Stop_Time", 0)?;
        if stop > 0 {
            // MQSim's flow issues requests until its clock passes Stop_Time; ssdlab's
            // host does the same with host.stop_ns (the requests default, span / size,
            // stays an upper bound).
            b.set("host.stop_ns", crate::units::wide_u64::value(stop));
            b.note(&set, "Stop_Time", Fate::Mapped, &["host.stop_ns"]);
        } else {
            b.note(
                &set,
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

/// Top-level keys, which TOML needs before any table.
const TOP: &[&str] = &["seed", "precondition", "fill_percent"];

/// The import as a TOML file: a header, the account of every MQSim parameter as
/// comments, then the configuration.
pub fn to_toml(imp: &Import, command: &str) -> String {
    let mut s = String::new();
    let _ = writeln!(
        s,
        "# Written by `{command}` (docs/mqsim.md): MQSim's parameters in ssdlab keys."
    );
    let _ = writeln!(
        s,
        "# Every MQSim parameter is listed: mapped (exactly), approximated (how), or not"
    );
    let _ = writeln!(s, "# mapped (why). Load with `ssdlab run --config FILE`.");
    let _ = writeln!(s, "#");
    for p in &imp.params {
        let what = match &p.fate {
            Fate::Mapped => "mapped".to_string(),
            Fate::Approximated(how) => format!("approximated: {how}"),
            Fate::NotMapped(why) => format!("cannot map: {why}"),
        };
        let keys = if p.keys.is_empty() || matches!(p.fate, Fate::NotMapped(_)) {
            String::new()
        } else {
            format!(" -> {}", p.keys.join(", "))
        };
        let value = if p.value.is_empty() {
            String::new()
        } else {
            format!(" = {}", p.value)
        };
        let _ = writeln!(s, "# {}:{} {}{value}{keys}: {what}", p.file, p.line, p.path);
    }
    if !imp.unknown.is_empty() {
        let _ = writeln!(s, "#");
        let _ = writeln!(s, "# Elements MQSim does not read (ignored here too):");
        for (f, path, line) in &imp.unknown {
            let _ = writeln!(s, "#   {f}:{line} {path}");
        }
    }
    if !imp.pinned.is_empty() {
        let _ = writeln!(s, "#");
        let _ = writeln!(
            s,
            "# Not MQSim parameters, pinned so that the default preset leaks nothing: {}",
            imp.pinned.join(", ")
        );
    }
    s.push('\n');
    // `top.*` holds the top-level keys (TOML puts them before the tables).
    if let Some((_, keys)) = imp.sections.iter().find(|(n, _)| n == "top") {
        for k in TOP {
            if let Some((_, v)) = keys.iter().find(|(kk, _)| kk == k) {
                let _ = writeln!(s, "{k} = {v}");
            }
        }
        s.push('\n');
    }
    // Sub-tables (`ftl.dftl`) after their parent's keys.
    let mut tables: Vec<(String, Vec<(String, toml::Value)>)> = Vec::new();
    for (section, keys) in imp.sections.iter().filter(|(n, _)| n != "top") {
        for (k, v) in keys {
            let (table, key) = match k.rsplit_once('.') {
                Some((sub, key)) => (format!("{section}.{sub}"), key.to_string()),
                None => (section.clone(), k.clone()),
            };
            match tables.iter_mut().find(|(t, _)| *t == table) {
                Some((_, kv)) => kv.push((key, v.clone())),
                None => tables.push((table, vec![(key, v.clone())])),
            }
        }
    }
    tables.sort_by_key(|(t, _)| {
        let top = t.split('.').next().unwrap_or("").to_string();
        let order = ["device", "ftl", "buffer", "host", "workload", "trace"];
        (
            order.iter().position(|o| *o == top).unwrap_or(order.len()),
            t.contains('.'),
            t.clone(),
        )
    });
    for (t, kv) in tables {
        let _ = writeln!(s, "[{t}]");
        for (k, v) in kv {
            let _ = writeln!(s, "{k} = {v}");
        }
        s.push('\n');
    }
    s
}

/// Whether `text` looks like an XML document (for `--config`'s hint).
pub fn looks_like_xml(text: &str) -> bool {
    let t = text.trim_start_matches('\u{feff}').trim_start();
    t.starts_with("<?xml") || t.starts_with('<')
}

/// Greatest common divisor.
fn gcd(a: u64, b: u64) -> u64 {
    if b == 0 { a } else { gcd(b, a % b) }
}
