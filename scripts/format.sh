#!/usr/bin/env bash
# Formats the Swift code in place with the toolchain's formatter (`swift format`, shipped
# with Swift 6) and the configuration in .swift-format: 4-space indentation, 120 columns,
# existing line breaks kept, a parameter list too long for one line broken after its
# opening parenthesis. The files: Package.swift, Sources and the Swift tests (Tests/*,
# without the pytest suite in Tests/IntegrationTests). scripts/test.sh checks the same
# files with `swift format lint --strict`, so run this before committing.
#
# Rules left off in .swift-format, because the code says things better their way:
# several short declarations on one line (`let l = min(...), t = min(...)`) and one-line
# loop bodies with a semicolon, enums whose raw values read as one table on one line,
# the C names of libm's functions in Motion/Math/LibM.swift, numbers written as the
# kernel and datasheets write them (no `_` groups), `forEach` in a `defer`, and
# `drain(..., while: {...}) { ... }`, whose two closures are the condition and the step.
# The formatter never breaks a string literal: a text longer than the line is split by
# hand (`"..." + "..."`, or a multi-line literal with `\` at the line ends).
set -euo pipefail
cd "$(dirname "$0")/.."
swift format format --in-place --parallel --recursive Package.swift Sources Tests
