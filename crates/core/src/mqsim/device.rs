//! The device half of an MQSim import: `ssdconfig.xml`'s host, device and flash
//! parameter sets (`Host_Parameter_Set.cpp`, `Device_Parameter_Set.cpp`,
//! `Flash_Parameter_Set.cpp`) mapped onto ssdlab's `device`, `ftl` and `buffer` keys, one
//! function per group of parameters (geometry, capacity, latencies, channels, host
//! interface, data cache, mapping, garbage collection, wear leveling, preconditioning), in
//! the order the configuration lists them.

use super::{
    Builder, DeviceFacts, Fate, ImportError, SECTOR_BYTES, Set, elements, flag, line_of, num,
    parse, read_set, text,
};

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

/// The flash array's shape as the file gives it (MQSim's defaults where absent).
struct Shape {
    /// `Flash_Technology`, upper case.
    tech: String,
    /// ssdlab's cell name.
    cell: &'static str,
    channels: u64,
    chips: u64,
    dies: u64,
    planes: u64,
    blocks: u64,
    pages: u64,
    page_bytes: u64,
}

/// Maps `ssdconfig.xml` (name, text) onto the device, FTL and buffer keys.
pub(super) fn device(
    b: &mut Builder,
    (file, xml): (&str, &str),
) -> Result<DeviceFacts, ImportError> {
    let doc = parse(file, xml)?;
    let (host, dev, flash) = read_sets(b, &doc, file)?;
    let (dev, flash) = (&dev, &flash);
    // Defaults are MQSim's own (the static initialisers of the parameter sets).
    b.set(
        "device.description",
        format!("imported from MQSim {file} by ssdlab import-mqsim"),
    );
    if text(dev, "Memory_Type", "FLASH") != "FLASH" {
        b.note(
            dev,
            "Memory_Type",
            Fate::NotMapped("ssdlab models NAND flash only".into()),
            &[],
        );
    } else {
        b.note(dev, "Memory_Type", Fate::Mapped, &[]);
    }

    let shape = geometry(b, dev, flash, file)?;
    let (physical_pages, logical_pages) = capacity(b, dev, flash, file, &shape)?;
    latencies(b, flash, &shape)?;
    channel_rate(b, dev)?;
    let interface = host_interface(b, dev, &host)?;
    data_cache(b, dev)?;
    let dftl = mapping(b, dev, file, physical_pages, shape.page_bytes)?;
    gc_trigger_and_victim(b, dev, file, shape.blocks)?;
    gc_schedule(b, dev, flash)?;
    wear_leveling(b, dev, dftl)?;
    let precondition = precondition_and_seed(b, dev)?;
    pin_defaults(b, &interface);
    Ok(DeviceFacts {
        logical_bytes: logical_pages * shape.page_bytes,
        preconditioning: precondition,
    })
}

/// The host, device and flash parameter sets under the root; other elements are listed as
/// unknown.
fn read_sets(
    b: &mut Builder,
    doc: &roxmltree::Document,
    file: &str,
) -> Result<(Option<Set>, Set, Set), ImportError> {
    let root = doc.root_element();
    if root.tag_name().name() != "Execution_Parameter_Set" {
        return Err(ImportError::Root {
            file: file.to_string(),
            line: line_of(doc, root),
            found: root.tag_name().name().to_string(),
            expected: "Execution_Parameter_Set",
            what: "MQSim's ssdconfig.xml",
        });
    }
    let mut unknown = Vec::new();
    let mut host_node = None;
    let mut dev_node = None;
    for c in elements(root) {
        match c.tag_name().name() {
            "Host_Parameter_Set" => host_node = Some(c),
            "Device_Parameter_Set" => dev_node = Some(c),
            n => unknown.push((file.to_string(), n.to_string(), line_of(doc, c))),
        }
    }
    let dev_node = dev_node.ok_or_else(|| ImportError::Missing {
        file: file.to_string(),
        what: "<Device_Parameter_Set> under <Execution_Parameter_Set>",
    })?;
    let host =
        host_node.map(|n| read_set(doc, n, file, "Host_Parameter_Set", HOST, &[], &mut unknown));
    let dev = read_set(
        doc,
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
            doc,
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
    Ok((host, dev, flash))
}

/// Geometry: cell type, channels, chips, dies, planes, pages per block, page and OOB size.
fn geometry(b: &mut Builder, dev: &Set, flash: &Set, file: &str) -> Result<Shape, ImportError> {
    let tech = text(flash, "Flash_Technology", "MLC").to_ascii_uppercase();
    let cell = match tech.as_str() {
        "SLC" => "slc",
        "MLC" => "mlc",
        "TLC" => "tlc",
        other => {
            return Err(ImportError::Value {
                file: flash.file.clone(),
                line: None,
                name: "Flash_Technology".into(),
                value: format!("{other:?}"),
                expected: "SLC, MLC or TLC".into(),
            });
        }
    };
    b.set("device.cell", cell);
    b.note(flash, "Flash_Technology", Fate::Mapped, &["device.cell"]);
    let channels: u64 = num(dev, "Flash_Channel_Count", 8)?;
    let chips: u64 = num(dev, "Chip_No_Per_Channel", 4)?;
    let dies: u64 = num(flash, "Die_No_Per_Chip", 2)?;
    let planes: u64 = num(flash, "Plane_No_Per_Die", 2)?;
    let blocks: u64 = num(flash, "Block_No_Per_Plane", 2048)?;
    let pages: u64 = num(flash, "Page_No_Per_Block", 256)?;
    let page_bytes: u64 = num(flash, "Page_Capacity", 8192)?;
    let oob_bytes: u64 = num(flash, "Page_Metadat_Capacity", 1872)?;
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
            return Err(ImportError::Value {
                file: file.to_string(),
                line: None,
                name: name.into(),
                value: "0".into(),
                expected: "at least 1".into(),
            });
        }
    }
    b.set("device.channels", channels as i64);
    b.note(
        dev,
        "Flash_Channel_Count",
        Fate::Mapped,
        &["device.channels"],
    );
    b.set("device.chips_per_channel", chips as i64);
    b.note(
        dev,
        "Chip_No_Per_Channel",
        Fate::Mapped,
        &["device.chips_per_channel"],
    );
    b.set("device.dies_per_chip", dies as i64);
    b.note(
        flash,
        "Die_No_Per_Chip",
        Fate::Mapped,
        &["device.dies_per_chip"],
    );
    b.set("device.planes_per_die", planes as i64);
    b.note(
        flash,
        "Plane_No_Per_Die",
        Fate::Mapped,
        &["device.planes_per_die"],
    );
    b.set(
        "device.page_size",
        crate::units::Size(page_bytes).to_string(),
    );
    b.note(flash, "Page_Capacity", Fate::Mapped, &["device.page_size"]);
    b.set("device.pages_per_block", pages as i64);
    b.note(
        flash,
        "Page_No_Per_Block",
        Fate::Mapped,
        &["device.pages_per_block"],
    );
    b.set("device.oob_size", crate::units::Size(oob_bytes).to_string());
    b.note(
        flash,
        "Page_Metadat_Capacity",
        Fate::Mapped,
        &["device.oob_size"],
    );
    Ok(Shape {
        tech,
        cell,
        channels,
        chips,
        dies,
        planes,
        blocks,
        pages,
        page_bytes,
    })
}

/// Capacity and over-provisioning; returns the physical and logical pages.
fn capacity(
    b: &mut Builder,
    dev: &Set,
    flash: &Set,
    file: &str,
    shape: &Shape,
) -> Result<(u64, u64), ImportError> {
    let Shape {
        channels,
        chips,
        dies,
        planes,
        blocks,
        pages,
        page_bytes,
        ..
    } = *shape;
    // Capacity: MQSim's logical pages are ⌊physical × (1 − ratio)⌋
    // (Address_Mapping_Unit_Base); ssdlab's over-provisioning is (physical − logical) /
    // logical, and its physical space is rounded up to whole blocks on every plane, so an
    // op_percent a little under the exact ratio gives back MQSim's blocks per plane.
    let ratio: f64 = num(dev, "Overprovisioning_Ratio", 0.07)?;
    if !(0.0..1.0).contains(&ratio) {
        return Err(ImportError::Value {
            file: file.to_string(),
            line: None,
            name: "Overprovisioning_Ratio".into(),
            value: ratio.to_string(),
            expected: "0 ≤ ratio < 1 (the spare share of the physical space)".into(),
        });
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
        flash,
        "Block_No_Per_Plane",
        Fate::Approximated(format!(
            "ssdlab derives blocks per plane from capacity and op_percent: {physical_pages} physical pages, {blocks} blocks per plane"
        )),
        &["device.capacity", "device.op_percent"],
    );
    b.note(
        dev,
        "Overprovisioning_Ratio",
        Fate::Approximated(format!(
            "MQSim's spare share of the physical space: {logical_pages} logical pages = ⌊physical × (1 − {ratio})⌋; op_percent = (physical − logical) / logical = {op} (rounded down so whole blocks round back to {blocks} per plane)"
        )),
        &["device.capacity", "device.op_percent"],
    );
    Ok((physical_pages, logical_pages))
}

/// Read, program and erase latencies and the endurance.
fn latencies(b: &mut Builder, flash: &Set, shape: &Shape) -> Result<(), ImportError> {
    let (cell, tech) = (shape.cell, &shape.tech);
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
            vals.push(num(flash, &format!("Page_{what}_Latency_{l}"), default)?);
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
            b.note(flash, &name, fate, &[key]);
        }
    }
    let erase: u64 = num(flash, "Block_Erase_Latency", 3_800_000)?;
    b.set("device.erase_ns", erase as i64);
    b.note(
        flash,
        "Block_Erase_Latency",
        Fate::Mapped,
        &["device.erase_ns"],
    );
    let pe: u64 = num(flash, "Block_PE_Cycles_Limit", 10_000)?;
    b.set("device.endurance_cycles", pe.max(1) as i64);
    b.note(
        flash,
        "Block_PE_Cycles_Limit",
        Fate::Mapped,
        &["device.endurance_cycles"],
    );
    Ok(())
}

/// The flash channels' transfer rate.
fn channel_rate(b: &mut Builder, dev: &Set) -> Result<(), ImportError> {
    // Channels: MQSim's rate is in MT/s over a bus Flash_Channel_Width bytes wide.
    let rate: f64 = num(dev, "Channel_Transfer_Rate", 300.0)?;
    let width: f64 = num(dev, "Flash_Channel_Width", 1.0)?;
    b.set("device.channel_mb_s", rate * width);
    b.note(
        dev,
        "Channel_Transfer_Rate",
        Fate::Mapped,
        &["device.channel_mb_s"],
    );
    b.note(
        dev,
        "Flash_Channel_Width",
        Fate::Mapped,
        &["device.channel_mb_s"],
    );
    b.note(
        dev,
        "Flash_Comm_Protocol",
        Fate::Approximated(
            "the protocol's command cycles are not modelled; transfers take page size / channel_mb_s".into(),
        ),
        &[],
    );
    Ok(())
}

/// The host interface (NVMe or SATA) and its link; returns `HostInterface_Type`, upper case.
fn host_interface(b: &mut Builder, dev: &Set, host: &Option<Set>) -> Result<String, ImportError> {
    // Host interface.
    let interface = text(dev, "HostInterface_Type", "NVME").to_ascii_uppercase();
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
        dev,
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
            dev,
            n,
            Fate::NotMapped(
                "ssdlab has no submission-queue size or fetch window: the host keeps host.qd commands outstanding and the device takes them all".into(),
            ),
            &[],
        );
    }
    Ok(interface)
}

/// The DRAM data cache: size and copy rate.
fn data_cache(b: &mut Builder, dev: &Set) -> Result<(), ImportError> {
    // Data cache.
    let cache_bytes: u64 = num(dev, "Data_Cache_Capacity", 512 << 20)?;
    let mechanism = text(dev, "Caching_Mechanism", "ADVANCED").to_ascii_uppercase();
    b.set(
        "device.dram_buffer",
        crate::units::Size(cache_bytes).to_string(),
    );
    b.set("buffer.name", "lru");
    b.set("buffer.size", crate::units::Size(cache_bytes).to_string());
    b.note(
        dev,
        "Data_Cache_Capacity",
        Fate::Mapped,
        &["device.dram_buffer", "buffer.size"],
    );
    b.note(
        dev,
        "Caching_Mechanism",
        Fate::Approximated(format!(
            "{mechanism}: ssdlab's page LRU write buffer; MQSim's sector bitmaps and its eager write-back of the first write of a page each second are not modelled (docs/mqsim.md)"
        )),
        &["buffer.name"],
    );
    let data_rate: f64 = num(dev, "Data_Cache_DRAM_Data_Rate", 800.0)?;
    let burst: f64 = num(dev, "Data_Cache_DRAM_Data_Busrt_Size", 4.0)?;
    // estimate_dram_access_time: burst bytes per half transfer time of 1 / data rate.
    let dram_mb_s = data_rate * burst * 2.0;
    b.set("buffer.dram_mb_s", dram_mb_s);
    for n in [
        "Data_Cache_DRAM_Data_Rate",
        "Data_Cache_DRAM_Data_Busrt_Size",
    ] {
        b.note(
            dev,
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
            dev,
            n,
            Fate::NotMapped(
                "DRAM rows and their activation times are not modelled (only the copy rate)".into(),
            ),
            &[],
        );
    }
    for n in ["Data_Cache_Sharing_Mode", "CMT_Sharing_Mode"] {
        b.note(
            dev,
            n,
            Fate::NotMapped("ssdlab runs one flow: nothing is shared between flows".into()),
            &[],
        );
    }
    Ok(())
}

/// Address mapping (ideal table or DFTL with a cached map), plane allocation and
/// scheduling; returns whether the FTL is DFTL.
fn mapping(
    b: &mut Builder,
    dev: &Set,
    file: &str,
    physical_pages: u64,
    page_bytes: u64,
) -> Result<bool, ImportError> {
    // Mapping.
    let mapping = text(dev, "Address_Mapping", "PAGE_LEVEL").to_ascii_uppercase();
    let ideal = flag(dev, "Ideal_Mapping_Table", false);
    let cmt_bytes: u64 = num(dev, "CMT_Capacity", 2 << 20)?;
    if mapping != "PAGE_LEVEL" {
        return Err(ImportError::Unsupported {
            file: file.to_string(),
            name: "Address_Mapping".into(),
            value: format!("{mapping:?}"),
            reason:
                "only PAGE_LEVEL is imported (MQSim's HYBRID mapping is unfinished in MQSim itself)"
                    .into(),
        });
    }
    let dftl = !ideal;
    if ideal {
        b.set("ftl.name", "page");
        b.note(dev, "Address_Mapping", Fate::Mapped, &["ftl.name"]);
        b.note(dev, "Ideal_Mapping_Table", Fate::Mapped, &["ftl.name"]);
        b.note(
            dev,
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
            dev,
            "Address_Mapping",
            Fate::Approximated(
                "PAGE_LEVEL with a cached mapping table: DFTL, started cold (MQSim writes the whole map to flash and starts with an empty CMT); translation reads per miss as the DFTL paper (set ftl.dftl.coalesce_misses = true for MQSim's shared reads)".into(),
            ),
            &["ftl.name", "ftl.dftl.cmt_start"],
        );
        b.note(dev, "Ideal_Mapping_Table", Fate::Mapped, &["ftl.name"]);
        b.note(
            dev,
            "CMT_Capacity",
            Fate::Approximated(format!(
                "bytes to entries: {cmt_bytes} B / {entry_bytes} B per entry (⌈(2 × {bits} + {}) / 8⌉) = {entries} entries, replaced LRU",
                page_bytes / SECTOR_BYTES
            )),
            &["ftl.dftl.cmt_entries", "ftl.dftl.cmt_policy"],
        );
    }
    b.note(
        dev,
        "Plane_Allocation_Scheme",
        Fate::Approximated(format!(
            "{}: ssdlab stripes consecutive writes channel first over every plane (ftl.channel_placement = \"striped\"); MQSim's static allocation by address is not modelled",
            text(dev, "Plane_Allocation_Scheme", "CWDP")
        )),
        &["ftl.channel_placement"],
    );
    b.set("ftl.channel_placement", "striped");
    b.note(
        dev,
        "Transaction_Scheduling_Policy",
        Fate::NotMapped(
            "ssdlab places operations in request order, busy-until per die; MQSim's out-of-order priority scheduling is not modelled".into(),
        ),
        &[],
    );
    Ok(dftl)
}

/// When garbage collection starts and stops, and how it picks a victim.
fn gc_trigger_and_victim(
    b: &mut Builder,
    dev: &Set,
    file: &str,
    blocks: u64,
) -> Result<(), ImportError> {
    // Garbage collection and wear leveling.
    let gc_exec: f64 = num(dev, "GC_Exec_Threshold", 0.05)?;
    let low = ((gc_exec * blocks as f64).ceil() as i64).max(1);
    b.set("ftl.gc_low_free_blocks", low);
    b.set("ftl.gc_high_free_blocks", low + 1);
    b.note(
        dev,
        "GC_Exec_Threshold",
        Fate::Approximated(format!(
            "GC starts when a plane's free blocks fall below {gc_exec} × {blocks} = {low} and, as MQSim's collects one block at a time, stops at {}",
            low + 1
        )),
        &["ftl.gc_low_free_blocks", "ftl.gc_high_free_blocks"],
    );
    b.note(
        dev,
        "GC_Hard_Threshold",
        Fate::NotMapped(
            "only used by MQSim's preemptible GC to stop preempting; ssdlab's preemptive schedule has no hard threshold".into(),
        ),
        &[],
    );
    let policy = text(dev, "GC_Block_Selection_Policy", "GREEDY").to_ascii_uppercase();
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
            return Err(ImportError::Value {
                file: file.to_string(),
                line: None,
                name: "GC_Block_Selection_Policy".into(),
                value: format!("{other:?}"),
                expected: "GREEDY, RGA, RANDOM, RANDOM_P, RANDOM_PP or FIFO".into(),
            });
        }
    };
    b.set("ftl.gc", gc);
    if let Some(d) = d {
        b.set("ftl.gc_d", d);
    }
    b.note(
        dev,
        "GC_Block_Selection_Policy",
        fate,
        &["ftl.gc", "ftl.gc_d"],
    );
    Ok(())
}

/// Copy-back, preemptible GC and the suspension times.
fn gc_schedule(b: &mut Builder, dev: &Set, flash: &Set) -> Result<(), ImportError> {
    let copyback = flag(dev, "Use_Copyback_for_GC", false);
    b.set("device.copyback", copyback);
    b.note(
        dev,
        "Use_Copyback_for_GC",
        Fate::Mapped,
        &["device.copyback"],
    );
    let preempt = flag(dev, "Preemptible_GC_Enabled", true);
    if preempt {
        b.set("ftl.gc_schedule", "preemptive");
        let susp_p: u64 = num(flash, "Suspend_Program_Time", 100_000)?;
        let susp_e: u64 = num(flash, "Suspend_Erase_Time", 700_000)?;
        b.set("ftl.suspend.program_ns", susp_p as i64);
        b.set("ftl.suspend.erase_ns", susp_e as i64);
        b.note(
            dev,
            "Preemptible_GC_Enabled",
            Fate::Approximated(
                "ftl.gc_schedule = \"preemptive\": host operations suspend GC programs and erases"
                    .into(),
            ),
            &["ftl.gc_schedule"],
        );
        b.note(
            flash,
            "Suspend_Program_Time",
            Fate::Mapped,
            &["ftl.suspend.program_ns"],
        );
        b.note(
            flash,
            "Suspend_Erase_Time",
            Fate::Mapped,
            &["ftl.suspend.erase_ns"],
        );
    } else {
        b.set("ftl.gc_schedule", "foreground");
        b.note(
            dev,
            "Preemptible_GC_Enabled",
            Fate::Mapped,
            &["ftl.gc_schedule"],
        );
        for n in ["Suspend_Program_Time", "Suspend_Erase_Time"] {
            b.note(
                flash,
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
        flash,
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
        b.note(dev, n, Fate::NotMapped(why.into()), &[]);
    }
    Ok(())
}

/// Dynamic and static wear leveling.
fn wear_leveling(b: &mut Builder, dev: &Set, dftl: bool) -> Result<(), ImportError> {
    let dyn_wl = flag(dev, "Dynamic_Wearleveling_Enabled", true);
    b.set("ftl.dynamic_wl", dyn_wl);
    b.note(
        dev,
        "Dynamic_Wearleveling_Enabled",
        Fate::Mapped,
        &["ftl.dynamic_wl"],
    );
    let static_wl = flag(dev, "Static_Wearleveling_Enabled", true);
    let threshold: u64 = num(dev, "Static_Wearleveling_Threshold", 100)?;
    if dftl && static_wl {
        for n in [
            "Static_Wearleveling_Enabled",
            "Static_Wearleveling_Threshold",
        ] {
            b.note(
                dev,
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
            dev,
            "Static_Wearleveling_Enabled",
            Fate::Mapped,
            &["ftl.static_wl_threshold"],
        );
        b.note(
            dev,
            "Static_Wearleveling_Threshold",
            Fate::Mapped,
            &["ftl.static_wl_threshold"],
        );
    }
    Ok(())
}

/// Preconditioning and the seed; returns whether MQSim preconditions.
fn precondition_and_seed(b: &mut Builder, dev: &Set) -> Result<bool, ImportError> {
    // Preconditioning and the seed.
    let precondition = flag(dev, "Enabled_Preconditioning", true);
    b.note(
        dev,
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
    let seed: u64 = num(dev, "Seed", 123)?;
    b.set("top.seed", seed as i64);
    b.note(dev, "Seed", Fate::Approximated("ssdlab has one seed for every random choice (a synthetic flow's Seed, when imported, replaces it)".into()), &["seed"]);
    Ok(precondition)
}

/// Keys that are not MQSim parameters, pinned so the default preset leaks nothing.
fn pin_defaults(b: &mut Builder, interface: &str) {
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
}
