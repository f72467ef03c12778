// Tracing: the trace, shimmerd's record of what it read and drew (docs/TRACES.md).
//
// Purpose: the JSON Lines records (`TraceRecord`), written by one `TraceWriter` per run
// on the frame loop's thread (queued in memory, written to the file at least once a
// second and on exit) and read back whole (`TraceReader`) or record by record
// (`TraceStream`, for a trace played as the sensor), and the frames a replay draws from
// them (`ReplayTimeline`). The records' field names and units are a contract other
// programs read; `TraceJSON` writes them with the C locale's numbers.
// Invariants: a record costs the frame loop an append to memory, the file is written
// between frames, and a failed write only keeps the lines queued; a record half written
// when the disk fills or the process dies is the reader's to skip, and every whole line
// before it stays.
// Must not import: Runtime, Commands, Output or Sensors (layer 2: Motion, LinuxSystem,
// Logging).
