package collector

import (
	"reflect"
	"slices"
	"testing"
	"time"

	"github.com/partmon/partmon/model"
)

// probe stands for a part of the model after a new source added fields to
// it: mergeFields merges them without a line of its own.
type probe struct {
	ID     string
	Sizes  []int64
	Labels map[string]string
	Gauge  float64
	Count  *int64
	Window struct{ Lines []string }
}

func TestMergeFieldsMergesANewField(t *testing.T) {
	seven := int64(7)
	for _, c := range []struct {
		name     string
		lists    listRule
		dst, src probe
		want     probe
	}{
		{"a set number replaces", replaceLists,
			probe{Gauge: 1}, probe{Gauge: 2}, probe{Gauge: 2}},
		{"a zero leaves the merged value", replaceLists,
			probe{Gauge: 1, Labels: map[string]string{"a": "1"}}, probe{}, probe{Gauge: 1, Labels: map[string]string{"a": "1"}}},
		{"a node's list collects every source's entries", appendLists,
			probe{Sizes: []int64{1}}, probe{Sizes: []int64{2, 3}}, probe{Sizes: []int64{1, 2, 3}}},
		{"a cluster-wide list is the last one read", replaceLists,
			probe{Sizes: []int64{1}}, probe{Sizes: []int64{2, 3}}, probe{Sizes: []int64{2, 3}}},
		{"a map replaces whole", appendLists,
			probe{Labels: map[string]string{"a": "1"}}, probe{Labels: map[string]string{"b": "2"}}, probe{Labels: map[string]string{"b": "2"}}},
		{"an empty map read is a value", replaceLists,
			probe{Labels: map[string]string{"a": "1"}}, probe{Labels: map[string]string{}}, probe{Labels: map[string]string{}}},
		{"a pointer to a real zero is set", replaceLists,
			probe{Count: &seven}, probe{Count: new(int64)}, probe{Count: new(int64)}},
		{"a struct is copied with its lists", appendLists,
			probe{}, probe{Window: struct{ Lines []string }{[]string{"l"}}}, probe{Window: struct{ Lines []string }{[]string{"l"}}}},
		{"a skipped field keeps the collector's value", replaceLists,
			probe{ID: "mine"}, probe{ID: "theirs"}, probe{ID: "mine"}},
	} {
		t.Run(c.name, func(t *testing.T) {
			mergeFields(&c.dst, &c.src, c.lists, "ID")
			if !reflect.DeepEqual(c.dst, c.want) {
				t.Errorf("merged %+v, want %+v", c.dst, c.want)
			}
		})
	}
}

// TestMergeCoversTheModel: every field a source can set in each part of the
// model, those added later included, reaches the merged snapshot as a copy,
// except the fields the collector fills itself.
func TestMergeCoversTheModel(t *testing.T) {
	for _, c := range []struct {
		part  string
		merge func(dst, src any)
		kept  []string // fields the collector fills
		lists listRule
		value func() any
	}{
		{"cluster", func(d, s any) { mergeCluster(d.(*model.Snapshot), s.(*model.Snapshot)) },
			[]string{"Taken", "PerNode", "Sources"}, replaceLists, func() any { return new(model.Snapshot) }},
		{"node", func(d, s any) { mergeNode(d.(*model.NodeData), s.(*model.NodeData), nil) },
			[]string{"HostID", "Address", "Tables"}, appendLists, func() any { return &model.NodeData{Tables: map[string]*model.TableStats{}} }},
		{"table", func(d, s any) { mergeFields(d.(*model.TableStats), s.(*model.TableStats), replaceLists) },
			nil, replaceLists, func() any { return new(model.TableStats) }},
	} {
		t.Run(c.part, func(t *testing.T) {
			src := c.value()
			fill(reflect.ValueOf(src).Elem())
			dst := c.value()
			c.merge(dst, src)
			c.merge(dst, src)
			d, s := reflect.ValueOf(dst).Elem(), reflect.ValueOf(src).Elem()
			for i := range s.NumField() {
				name := s.Type().Field(i).Name
				got, read := d.Field(i), s.Field(i)
				switch {
				case slices.Contains(c.kept, name):
					if !got.IsZero() && name != "Tables" {
						t.Errorf("%s: the source's value reached a field the collector fills", name)
					}
				case read.Kind() == reflect.Slice && c.lists == appendLists:
					if got.Len() != 2*read.Len() {
						t.Errorf("%s: merged twice holds %d entries, want %d", name, got.Len(), 2*read.Len())
					}
				case !reflect.DeepEqual(got.Interface(), read.Interface()):
					t.Errorf("%s: merged %v, the source read %v", name, got, read)
				case shares(got, read):
					t.Errorf("%s: the merged snapshot shares memory with the source's", name)
				}
			}
		})
	}
}

// fill sets every exported field reachable from v to a value that is not zero.
func fill(v reflect.Value) {
	switch v.Kind() {
	case reflect.String:
		v.SetString("x")
	case reflect.Bool:
		v.SetBool(true)
	case reflect.Int, reflect.Int64, reflect.Int32:
		v.SetInt(7)
	case reflect.Float64:
		v.SetFloat(7.5)
	case reflect.Slice:
		v.Set(reflect.MakeSlice(v.Type(), 1, 1))
		fill(v.Index(0))
	case reflect.Map:
		k, e := reflect.New(v.Type().Key()).Elem(), reflect.New(v.Type().Elem()).Elem()
		fill(k)
		fill(e)
		v.Set(reflect.MakeMap(v.Type()))
		v.SetMapIndex(k, e)
	case reflect.Pointer:
		v.Set(reflect.New(v.Type().Elem()))
		fill(v.Elem())
	case reflect.Struct:
		if v.Type() == reflect.TypeOf(time.Time{}) {
			v.Set(reflect.ValueOf(time.Unix(7, 0)))
			return
		}
		for i := range v.NumField() {
			if v.Type().Field(i).IsExported() {
				fill(v.Field(i))
			}
		}
	default:
		panic("fill: no value for " + v.Type().String())
	}
}

// shares is true when a and b hold the same list, map or pointer.
func shares(a, b reflect.Value) bool {
	switch a.Kind() {
	case reflect.Slice, reflect.Map, reflect.Pointer:
		return !a.IsNil() && a.Pointer() == b.Pointer()
	}
	return false
}
