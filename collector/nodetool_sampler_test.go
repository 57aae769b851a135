package collector

import (
	"context"
	"errors"
	"testing"
)

func TestNodetoolSourceGates(t *testing.T) {
	ctx := context.Background()
	in := Input{Caps: cassandra50Caps(), Address: "10.0.0.2", Schema: restSchema("ks", "t")}
	pinned := nodetoolSource{cfg: NodetoolSamplerConfig{Command: []string{"nodetool", "-h", "10.0.0.1"}}}
	if _, err := pinned.Collect(ctx, in, newOutput(in.Address)); !errors.Is(err, ErrUnsupported) {
		t.Errorf("a command without {address} on another node: want ErrUnsupported, got %v", err)
	}
	scylla := in
	scylla.Caps = scyllaCaps()
	scylla.Own = true
	if _, err := pinned.Collect(ctx, scylla, newOutput(in.Address)); !errors.Is(err, ErrUnsupported) {
		t.Errorf("ScyllaDB: want ErrUnsupported, got %v", err)
	}
}
