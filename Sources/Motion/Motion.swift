// Motion: the pure core between an accelerometer sample and a focal point.
//
// Purpose: docs/TILT.md and docs/CARD.md ("From tilt to focal point") as values and
// pure functions: raw counts to m/s^2 (`AccelCalibration`), the mount matrix
// (`MountMatrix`), the scan decoder of the IIO buffer format (`ScanType`, `ScanLayout`),
// the baseline and tilt (`AttitudeEstimator`, `TiltFrame`), the One Euro filter
// (`OneEuroFilter`) and the mapper (`FocalMapper`).
// Invariants: nothing here reads a clock, a file or the process locale. Time is a
// parameter in seconds; numbers are parsed with the C locale by `SysfsNumber`. Every
// parser is total: it returns a typed error, it never traps on input.
// Must not import: Foundation, Glibc or any module that does I/O. The two libm
// functions needed are declared in `LibM.swift` (the target links libm).
// Folders: ScanFormat, Readings, Attitude, Gyroscope, Focal, Stage (`MotionInterpreter`
// and what it takes and gives), Math, Text (docs/ARCHITECTURE.md, section 3).
