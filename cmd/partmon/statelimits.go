package main

import "github.com/partmon/partmon/statefile"

// historyFitsStateFile refuses history limits the state file's bound
// cannot hold (statefile.CheckLimits); without a state file the history
// lives in memory only and its limits are analysis.history's own.
func historyFitsStateFile(c *Config) error {
	// Limits the history refuses are said once, by its own check: sizing
	// a series of a mistyped key_points would build it.
	if c.State.File == "" || c.Analysis.History.Validate() != nil {
		return nil //nolint:nilerr // the history's own check reports it
	}
	return statefile.CheckLimits(c.Analysis.History)
}
