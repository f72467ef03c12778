// Raster: see the module's main file (being written).
