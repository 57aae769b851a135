package manifestcheck

import (
	"bufio"
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	utilyaml "k8s.io/apimachinery/pkg/util/yaml"
	"sigs.k8s.io/yaml"
)

// manifest is one YAML document of a file under deploy/kubernetes.
type manifest struct {
	file string
	kind string
	name string
	json []byte
}

// loadManifests reads every document of every .yaml file in dir.
func loadManifests(t *testing.T, dir string) []manifest {
	t.Helper()
	files, err := filepath.Glob(filepath.Join(dir, "*.yaml"))
	if err != nil || len(files) == 0 {
		t.Fatalf("no manifests in %s: %v", dir, err)
	}
	var out []manifest
	for _, f := range files {
		data, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		r := utilyaml.NewYAMLReader(bufio.NewReader(bytes.NewReader(data)))
		for {
			doc, err := r.Read()
			if errors.Is(err, io.EOF) {
				break
			}
			if err != nil {
				t.Fatalf("%s: %v", f, err)
			}
			j, err := yaml.YAMLToJSONStrict(doc)
			if err != nil {
				t.Fatalf("%s: %v", f, err)
			}
			if string(bytes.TrimSpace(j)) == "null" {
				continue
			}
			var head struct {
				Kind     string `json:"kind"`
				Metadata struct {
					Name string `json:"name"`
				} `json:"metadata"`
			}
			if err := json.Unmarshal(j, &head); err != nil {
				t.Fatalf("%s: %v", f, err)
			}
			out = append(out, manifest{file: filepath.Base(f), kind: head.Kind, name: head.Metadata.Name, json: j})
		}
	}
	return out
}

// strictTypes are the Kubernetes types of the kinds shipped without a CRD.
func strictType(kind string) any {
	switch kind {
	case "StatefulSet":
		return &appsv1.StatefulSet{}
	case "Service":
		return &corev1.Service{}
	case "ConfigMap":
		return &corev1.ConfigMap{}
	case "Secret":
		return &corev1.Secret{}
	}
	return nil
}

// crdSchemas are the CRDs' published schemas (testdata/README.md).
var crdSchemas = map[string]string{
	"CassandraDatacenter": "testdata/cassandradatacenter.v1beta1.schema.json",
	"PodMonitor":          "testdata/podmonitor.v1.schema.json",
	"PrometheusRule":      "testdata/prometheusrule.v1.schema.json",
}

// decodeStrict decodes like `kubectl apply --validate=strict`: a field the
// type does not have is an error.
func decodeStrict(j []byte, into any) error {
	return yaml.UnmarshalStrict(j, into)
}

func TestManifestsDecodeStrictly(t *testing.T) {
	seen := map[string]bool{}
	for _, dir := range []string{"..", "../cass-operator"} {
		for _, m := range loadManifests(t, dir) {
			seen[m.kind] = true
			where := fmt.Sprintf("%s %s/%s", m.file, m.kind, m.name)
			if into := strictType(m.kind); into != nil {
				if err := decodeStrict(m.json, into); err != nil {
					t.Errorf("%s: %v", where, err)
				}
				continue
			}
			schema, ok := crdSchemas[m.kind]
			if !ok {
				t.Errorf("%s: no Kubernetes type or CRD schema here to check kind %s against", where, m.kind)
				continue
			}
			if err := validateCRD(t, schema, m.json); err != nil {
				t.Errorf("%s: against %s: %v", where, schema, err)
			}
		}
	}
	for _, k := range []string{"StatefulSet", "Service", "ConfigMap", "Secret", "PodMonitor", "PrometheusRule", "CassandraDatacenter"} {
		if !seen[k] {
			t.Errorf("no %s among the manifests: the test above checked less than it claims", k)
		}
	}
}

// TestPodTemplateSpecIsAPodTemplate: the CRD's schema leaves podTemplateSpec
// open in places (x-kubernetes-preserve-unknown-fields); the operator merges
// it into a corev1.PodTemplateSpec, so it must decode into one strictly.
func TestPodTemplateSpecIsAPodTemplate(t *testing.T) {
	for _, m := range loadManifests(t, "../cass-operator") {
		var dc struct {
			Spec struct {
				PodTemplateSpec json.RawMessage `json:"podTemplateSpec"`
			} `json:"spec"`
		}
		if err := json.Unmarshal(m.json, &dc); err != nil || len(dc.Spec.PodTemplateSpec) == 0 {
			t.Fatalf("%s: no spec.podTemplateSpec: %v", m.file, err)
		}
		var pts corev1.PodTemplateSpec
		if err := decodeStrict(dc.Spec.PodTemplateSpec, &pts); err != nil {
			t.Errorf("%s podTemplateSpec: %v", m.file, err)
		}
		if c := findContainer(pts.Spec.Containers, "partmon"); c == nil {
			t.Errorf("%s: no partmon container in podTemplateSpec", m.file)
		} else {
			// The operator adds the data volume: its PersistentVolumeClaim is
			// named server-data (cass-operator, pkg/reconciliation PvcName).
			checkPodAgrees(t, m.file, pts.Spec, c, "server-data")
		}
	}
}

func TestStatefulSetAgrees(t *testing.T) {
	for _, m := range loadManifests(t, "..") {
		if m.kind != "StatefulSet" {
			continue
		}
		var sts appsv1.StatefulSet
		if err := decodeStrict(m.json, &sts); err != nil {
			t.Fatal(err)
		}
		c := findContainer(sts.Spec.Template.Spec.Containers, "partmon")
		if c == nil {
			t.Fatalf("%s: no partmon container", m.file)
		}
		var claims []string
		for _, pvc := range sts.Spec.VolumeClaimTemplates {
			claims = append(claims, pvc.Name)
		}
		checkPodAgrees(t, m.file, sts.Spec.Template.Spec, c, claims...)
	}
}

func findContainer(cs []corev1.Container, name string) *corev1.Container {
	for i := range cs {
		if cs[i].Name == name {
			return &cs[i]
		}
	}
	return nil
}

// checkPodAgrees: the partmon container's mounts name the pod's volumes
// (or the database's, dataVolumes, read-only only: a monitor never writes
// the database's files), every data_disk directory of its config sits on
// one of them, its probes name its ports, and its config file is a key of
// the ConfigMap mounted there.
func checkPodAgrees(t *testing.T, file string, pod corev1.PodSpec, c *corev1.Container, dataVolumes ...string) {
	t.Helper()
	volumes := map[string]corev1.Volume{}
	for _, v := range pod.Volumes {
		volumes[v.Name] = v
	}
	for _, vm := range c.VolumeMounts {
		_, ok := volumes[vm.Name]
		switch data := slices.Contains(dataVolumes, vm.Name); {
		case data && !vm.ReadOnly:
			t.Errorf("%s: partmon mounts the database's volume %s writable", file, vm.Name)
		case !ok && !data:
			t.Errorf("%s: partmon mounts volume %s, which the pod does not have", file, vm.Name)
		}
	}
	for _, dir := range dataDiskDirectories(t) {
		if !slices.ContainsFunc(c.VolumeMounts, func(vm corev1.VolumeMount) bool {
			return slices.Contains(dataVolumes, vm.Name) && strings.HasPrefix(dir+"/", strings.TrimSuffix(vm.MountPath, "/")+"/")
		}) {
			t.Errorf("%s: the ConfigMap's collector.data_disk directory %s is not on the database's volume mounted in partmon", file, dir)
		}
	}
	ports := map[string]int32{}
	for _, p := range c.Ports {
		ports[p.Name] = p.ContainerPort
	}
	for kind, p := range map[string]*corev1.Probe{"liveness": c.LivenessProbe, "readiness": c.ReadinessProbe, "startup": c.StartupProbe} {
		if p != nil && p.HTTPGet != nil && p.HTTPGet.Port.StrVal != "" {
			if _, ok := ports[p.HTTPGet.Port.StrVal]; !ok {
				t.Errorf("%s: partmon's %s probe uses port %q, which it does not declare", file, kind, p.HTTPGet.Port.StrVal)
			}
		}
	}
	if ports["partmon-metrics"] != 9808 {
		t.Errorf("%s: partmon-metrics is port %d, partmon's default is 9808", file, ports["partmon-metrics"])
	}
	var cfg string
	for _, a := range c.Args {
		if v, ok := strings.CutPrefix(a, "--config.file="); ok {
			cfg = v
		}
	}
	for _, vm := range c.VolumeMounts {
		if rest, ok := strings.CutPrefix(cfg, vm.MountPath+"/"); ok {
			v := volumes[vm.Name]
			if v.ConfigMap == nil || v.ConfigMap.Name != "partmon-config" || rest != "partmon.yml" {
				t.Errorf("%s: --config.file=%s is not key partmon.yml of ConfigMap partmon-config", file, cfg)
			}
			return
		}
	}
	t.Errorf("%s: --config.file=%q is not on a mounted volume", file, cfg)
}

// dataDiskDirectories are the collector.data_disk.directories of the
// shipped ConfigMap's partmon.yml.
func dataDiskDirectories(t *testing.T) []string {
	t.Helper()
	for _, m := range loadManifests(t, "..") {
		if m.kind != "ConfigMap" {
			continue
		}
		var cm corev1.ConfigMap
		if err := decodeStrict(m.json, &cm); err != nil {
			t.Fatal(err)
		}
		var cfg struct {
			Collector struct {
				DataDisk struct {
					Directories []string `json:"directories"`
				} `json:"data_disk"`
			} `json:"collector"`
		}
		if err := yaml.Unmarshal([]byte(cm.Data["partmon.yml"]), &cfg); err != nil {
			t.Fatalf("%s: partmon.yml: %v", m.file, err)
		}
		return cfg.Collector.DataDisk.Directories
	}
	t.Fatal("no ConfigMap among the manifests")
	return nil
}
