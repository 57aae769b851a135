// Package outputfuzz holds FuzzOutputs, which feeds the reports of
// tools/snapfuzz's snapshots of every shape to every output partmon has:
// the exporter and its exposition, the text and markdown reports, the JSON
// API, the status page, the Alertmanager pusher's alerts and the state
// file. It sits under tools/ because it imports them all (the outputs may
// not import each other). It has no code besides its test.
package outputfuzz
