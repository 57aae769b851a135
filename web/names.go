package web

import (
	"slices"

	"github.com/partmon/partmon/alertmanager"
	"github.com/partmon/partmon/exporter"
)

// MetricNames lists every partmon family /metrics can serve (sorted): the
// exporter's and the alert pusher's, so dashboard and alert-rule tests can
// check that their queries use real names. go_*, process_* and promhttp_*
// families are not listed.
func MetricNames() []string {
	names := append(exporter.MetricNames(), alertmanager.MetricNames()...)
	slices.Sort(names)
	return names
}
