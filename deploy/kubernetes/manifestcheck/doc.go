// Package manifestcheck holds the Kubernetes manifests in deploy/kubernetes to
// Kubernetes' own types. It is a module of its own so that k8s.io/api stays out
// of partmon's go.mod.
package manifestcheck
