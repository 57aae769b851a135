package analyzer

// viewFigures are the report's figures that the rules' view computes (the
// tables, their size histories) and the rules' part of the heatmaps' input;
// no rule reads them. The rest are package figures', built from the index
// and the history.
type viewFigures struct{ *analysis }
