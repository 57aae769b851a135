package main

import "github.com/partmon/partmon/statefile"

// historyFitsStateFile refuses history limits the state file's bound
// cannot hold (statefile.CheckLimits); without a state file the history
// lives in memory only and its limits are analysis.history's own.
func historyFitsStateFile(c *Config) error {
	if c.State.File == "" {
		return nil
	}
	return statefile.CheckLimits(c.Analysis.History)
}
