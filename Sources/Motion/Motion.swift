// Placeholder: filled in by the motion work (issue 3).
