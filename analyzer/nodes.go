package analyzer

// viewFigures are the report's figures that the rules' view computes (the
// tables, their size histories, the heatmaps); no rule reads them. The
// rest are package figures', built from the index and the history.
type viewFigures struct{ *analysis }
