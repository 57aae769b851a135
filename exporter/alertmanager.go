package exporter

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"sort"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/prometheus/client_golang/prometheus"
	"go.uber.org/zap"

	"github.com/partmon/partmon/analyzer"
)

// Which findings become pushed alerts.
//
// Key-level findings (those naming a partition key) cannot be alerted on from
// Prometheus rules without one label value per key, so partmon pushes them to
// Alertmanager itself. Findings of DefaultAlertKinds are pushed too even when
// they name no key (a table's largest partition from system_views has no key):
// they are the ones an operator must act on per table. Everything else
// (ownership and load skew, hot token ranges, schema-design findings,
// forecasts, stale data) is published as partmon_finding_value /
// partmon_node_* series for Prometheus alerting rules with a `for:` clause.
// Alert rules should therefore not also alert on partmon_finding_value for
// DefaultAlertKinds, or operators get two alerts for one problem.
var DefaultAlertKinds = analyzer.KindsPushedWithoutKey()

// DefaultRunbookURL is the runbook_url of pushed alerts unless configured:
// the runbook has one section per finding kind.
const DefaultRunbookURL = "https://github.com/partmon/partmon/blob/main/docs/runbooks/PartmonAnalyzerFinding.md#{kind}"

const (
	defaultResendInterval = time.Minute
	defaultAlertTimeout   = 10 * time.Second
	defaultMinBackoff     = time.Second
	alertsPath            = "/api/v2/alerts"
)

// AlertOptions configure an AlertPusher.
type AlertOptions struct {
	// URLs are Alertmanager base URLs (http://am:9093); alerts go to each of
	// them, as Prometheus does, since Alertmanager peers deduplicate.
	URLs []string
	// MinSeverity is the least severe finding pushed; zero means warning.
	MinSeverity analyzer.Severity
	// Kinds are pushed even without a partition key; nil means DefaultAlertKinds.
	Kinds []string
	// ResendInterval is how often active alerts are re-sent (default 1m);
	// each carries endsAt = now + 3×ResendInterval.
	ResendInterval time.Duration
	// Cluster, Mode and SpeakFor mean what they mean in Options: a sidecar
	// pushes only its own node's findings (and node-less ones).
	Cluster  string
	Mode     Mode
	SpeakFor []string
	// ExternalURL is partmon's own URL; alerts link to its status page.
	ExternalURL string
	// RunbookURL becomes the runbook_url annotation with "{kind}" replaced
	// by the finding's kind; empty means DefaultRunbookURL, "-" leaves it out.
	RunbookURL string
	// Timeout bounds one POST (default 10s). MinBackoff (default 1s) doubles
	// after each failed POST up to MaxBackoff (default ResendInterval).
	Timeout    time.Duration
	MinBackoff time.Duration
	MaxBackoff time.Duration
	Client     *http.Client
	Logger     *zap.Logger
	// Now is the clock (tests); nil means time.Now.
	Now func() time.Time
}

// AlertPusher pushes key-level findings to Alertmanager's v2 API. Update never
// blocks on the network: Run's goroutines send, re-send and retry.
type AlertPusher struct {
	opts     AlertOptions
	audience audience
	kinds    map[string]bool
	targets  []*amTarget

	pushed prometheus.Counter
	errors prometheus.Counter

	mu       sync.Mutex
	active   map[string]*activeAlert
	resolved map[string]*resolvedAlert
}

var _ prometheus.Collector = (*AlertPusher)(nil)

type amTarget struct {
	url  string // full URL of the alerts endpoint
	wake chan struct{}
}

// amAlert is one element of Alertmanager's POST /api/v2/alerts body
// (postableAlert in alertmanager's api/v2/openapi.yaml).
type amAlert struct {
	Labels       map[string]string `json:"labels"`
	Annotations  map[string]string `json:"annotations"`
	StartsAt     time.Time         `json:"startsAt"`
	EndsAt       time.Time         `json:"endsAt"`
	GeneratorURL string            `json:"generatorURL,omitempty"`
}

type activeAlert struct {
	alert amAlert // EndsAt is set per send
}

type resolvedAlert struct {
	alert   amAlert         // EndsAt is when the finding disappeared
	pending map[string]bool // target URLs that have not acknowledged the resolve
}

// NewAlertPusher checks the URLs and builds a pusher; call Run to start sending.
func NewAlertPusher(opts AlertOptions) (*AlertPusher, error) {
	if opts.MinSeverity == analyzer.SeverityNone {
		opts.MinSeverity = analyzer.SeverityWarning
	}
	if opts.Kinds == nil {
		opts.Kinds = DefaultAlertKinds
	}
	if opts.ResendInterval <= 0 {
		opts.ResendInterval = defaultResendInterval
	}
	if opts.RunbookURL == "" {
		opts.RunbookURL = DefaultRunbookURL
	}
	if opts.Timeout <= 0 {
		opts.Timeout = defaultAlertTimeout
	}
	if opts.MinBackoff <= 0 {
		opts.MinBackoff = defaultMinBackoff
	}
	if opts.MaxBackoff <= 0 {
		opts.MaxBackoff = opts.ResendInterval
	}
	if opts.Client == nil {
		opts.Client = &http.Client{}
	}
	if opts.Logger == nil {
		opts.Logger = zap.NewNop()
	}
	if opts.Now == nil {
		opts.Now = time.Now
	}
	p := &AlertPusher{
		opts:     opts,
		audience: newAudience(opts.Cluster, opts.Mode, opts.SpeakFor),
		kinds:    make(map[string]bool, len(opts.Kinds)),
		pushed: prometheus.NewCounter(prometheus.CounterOpts{Name: alertsPushedName,
			Help: "Alerts accepted by Alertmanager (counted once per Alertmanager and send)."}),
		errors: prometheus.NewCounter(prometheus.CounterOpts{Name: alertmanagerErrorName,
			Help: "Failed attempts to send alerts to an Alertmanager."}),
		active:   make(map[string]*activeAlert),
		resolved: make(map[string]*resolvedAlert),
	}
	for _, k := range opts.Kinds {
		p.kinds[k] = true
	}
	for _, raw := range opts.URLs {
		u, err := url.Parse(strings.TrimSpace(raw))
		if err != nil {
			return nil, fmt.Errorf("parsing alertmanager URL %q: %w", raw, err)
		}
		if (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
			return nil, fmt.Errorf("alertmanager URL %q: want http(s)://host:port", raw)
		}
		u.Path = strings.TrimSuffix(u.Path, "/") + alertsPath
		p.targets = append(p.targets, &amTarget{url: u.String(), wake: make(chan struct{}, 1)})
	}
	return p, nil
}

// Describe and Collect expose the pusher's own counters.
func (p *AlertPusher) Describe(ch chan<- *prometheus.Desc) {
	p.pushed.Describe(ch)
	p.errors.Describe(ch)
}

func (p *AlertPusher) Collect(ch chan<- prometheus.Metric) {
	p.pushed.Collect(ch)
	p.errors.Collect(ch)
}

// Update takes the findings of a new report: new ones become active alerts,
// vanished ones are resolved. A nil or failed report changes nothing (a
// collection failure is no proof a problem went away). It never blocks.
func (p *AlertPusher) Update(r *analyzer.Report) {
	if r == nil || reportFailed(r) {
		return
	}
	now := p.opts.Now().UTC()
	speaks := p.audience.nodeFilter(r)
	cluster := p.audience.clusterName(r)

	p.mu.Lock()
	seen := make(map[string]bool)
	for _, f := range r.Findings {
		if !p.pushes(f, speaks) {
			continue
		}
		id := alertKey(f)
		if seen[id] {
			continue
		}
		seen[id] = true
		next := p.alertFor(f, cluster)
		if cur, ok := p.active[id]; ok {
			if sameLabels(cur.alert.Labels, next.Labels) {
				next.StartsAt = cur.alert.StartsAt
			} else {
				// New labels are a new alert to Alertmanager: close the old one.
				p.resolve(id+"\x00"+now.String(), cur.alert, now)
				next.StartsAt = now
			}
		} else {
			next.StartsAt = now
		}
		delete(p.resolved, id)
		p.active[id] = &activeAlert{alert: next}
	}
	for id, a := range p.active {
		if !seen[id] {
			p.resolve(id, a.alert, now)
			delete(p.active, id)
		}
	}
	p.mu.Unlock()

	for _, t := range p.targets {
		select {
		case t.wake <- struct{}{}:
		default: // a send is already due
		}
	}
}

// resolve queues a's last send with endsAt = at for every target. Caller holds mu.
func (p *AlertPusher) resolve(id string, a amAlert, at time.Time) {
	a.EndsAt = at
	pending := make(map[string]bool, len(p.targets))
	for _, t := range p.targets {
		pending[t.url] = true
	}
	if len(pending) > 0 {
		p.resolved[id] = &resolvedAlert{alert: a, pending: pending}
	}
}

func (p *AlertPusher) pushes(f analyzer.Finding, speaks func(string) bool) bool {
	if f.Severity < p.opts.MinSeverity || !speaksForFinding(f, speaks) {
		return false
	}
	return f.PartitionKey != "" || p.kinds[f.Kind]
}

// alertKey follows a finding across cycles: its stable ID, else its scope.
func alertKey(f analyzer.Finding) string {
	if f.ID != "" {
		return f.ID
	}
	return strings.Join([]string{f.Kind, f.Node, f.Keyspace, f.Table, f.PartitionKey}, "\x00")
}

// AlertName is the alertname of a finding kind: oversized_partition → PartmonOversizedPartition.
func AlertName(kind string) string {
	var b strings.Builder
	b.WriteString("Partmon")
	for _, part := range strings.Split(kind, "_") {
		if part != "" {
			b.WriteString(strings.ToUpper(part[:1]) + part[1:])
		}
	}
	return b.String()
}

func (p *AlertPusher) alertFor(f analyzer.Finding, cluster string) amAlert {
	labels := map[string]string{}
	for k, v := range map[string]string{
		"alertname": AlertName(f.Kind), "severity": f.Severity.String(), "cluster": cluster,
		"dc": f.DC, "node": f.Node, "keyspace": f.Keyspace, "table": f.Table, "finding_id": f.ID,
	} {
		if v != "" {
			labels[k] = v // Alertmanager treats an empty label as absent; leave it out
		}
	}
	description := f.Advice
	if description == "" {
		description = f.Summary
	}
	ann := map[string]string{
		"summary":     f.Summary,
		"description": description,
		"value":       strconv.FormatFloat(f.Value, 'f', -1, 64),
		"threshold":   strconv.FormatFloat(f.Threshold, 'f', -1, 64),
	}
	if f.Unit != "" {
		ann["unit"] = f.Unit
	}
	if f.PartitionKey != "" {
		ann["partition_key"] = f.PartitionKey
	}
	if p.opts.RunbookURL != "-" {
		ann["runbook_url"] = strings.ReplaceAll(p.opts.RunbookURL, "{kind}", f.Kind)
	}
	for k, v := range ann {
		if v == "" {
			delete(ann, k)
		}
	}
	a := amAlert{Labels: labels, Annotations: ann}
	if p.opts.ExternalURL != "" && f.ID != "" {
		a.GeneratorURL = strings.TrimSuffix(p.opts.ExternalURL, "/") + "/#finding-" + url.PathEscape(f.ID)
	}
	return a
}

func sameLabels(a, b map[string]string) bool {
	if len(a) != len(b) {
		return false
	}
	for k, v := range a {
		if b[k] != v {
			return false
		}
	}
	return true
}

// payload is what target t must receive now: every active alert with a fresh
// endsAt, and the resolves t has not acknowledged, ordered by key.
func (p *AlertPusher) payload(t *amTarget) ([]amAlert, map[string]*resolvedAlert) {
	now := p.opts.Now().UTC()
	p.mu.Lock()
	defer p.mu.Unlock()
	// A resolve older than 3 intervals needs no delivery: Alertmanager has
	// expired the alert by the endsAt of its last successful re-send.
	for id, r := range p.resolved {
		if now.Sub(r.alert.EndsAt) > 3*p.opts.ResendInterval {
			delete(p.resolved, id)
		}
	}
	ids := make([]string, 0, len(p.active)+len(p.resolved))
	for id := range p.active {
		ids = append(ids, id)
	}
	included := make(map[string]*resolvedAlert)
	for id, r := range p.resolved {
		if r.pending[t.url] {
			ids = append(ids, id)
			included[id] = r
		}
	}
	sort.Strings(ids)
	alerts := make([]amAlert, 0, len(ids))
	for _, id := range ids {
		if a, ok := p.active[id]; ok {
			out := a.alert
			out.EndsAt = now.Add(3 * p.opts.ResendInterval)
			alerts = append(alerts, out)
		} else {
			alerts = append(alerts, included[id].alert)
		}
	}
	return alerts, included
}

// pushTo sends target t its payload once.
func (p *AlertPusher) pushTo(ctx context.Context, t *amTarget) error {
	alerts, included := p.payload(t)
	if len(alerts) == 0 {
		return nil
	}
	if err := p.post(ctx, t.url, alerts); err != nil {
		p.errors.Inc()
		return err
	}
	p.pushed.Add(float64(len(alerts)))
	p.mu.Lock()
	for id, r := range included {
		if p.resolved[id] == r { // not replaced meanwhile
			delete(r.pending, t.url)
			if len(r.pending) == 0 {
				delete(p.resolved, id)
			}
		}
	}
	p.mu.Unlock()
	return nil
}

func (p *AlertPusher) post(ctx context.Context, target string, alerts []amAlert) error {
	body, err := json.Marshal(alerts)
	if err != nil {
		return fmt.Errorf("encoding %d alerts: %w", len(alerts), err)
	}
	ctx, cancel := context.WithTimeout(ctx, p.opts.Timeout)
	defer cancel()
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, target, bytes.NewReader(body))
	if err != nil {
		return fmt.Errorf("building request to %s: %w", target, err)
	}
	req.Header.Set("Content-Type", "application/json")
	resp, err := p.opts.Client.Do(req)
	if err != nil {
		return fmt.Errorf("posting %d alerts to %s: %w", len(alerts), target, err)
	}
	defer resp.Body.Close()
	msg, _ := io.ReadAll(io.LimitReader(resp.Body, 1024))
	if resp.StatusCode/100 != 2 {
		return fmt.Errorf("posting %d alerts to %s: %s: %s", len(alerts), target, resp.Status, strings.TrimSpace(string(msg)))
	}
	return nil
}

// PushOnce sends every target its payload once, without retrying.
func (p *AlertPusher) PushOnce(ctx context.Context) error {
	var errs []error
	for _, t := range p.targets {
		if err := p.pushTo(ctx, t); err != nil {
			errs = append(errs, err)
		}
	}
	return errors.Join(errs...)
}

// Run sends to every Alertmanager until ctx is done: at once after Update,
// every ResendInterval otherwise, retrying failures with exponential backoff.
// Each Alertmanager has its own goroutine, so a slow one delays no other.
func (p *AlertPusher) Run(ctx context.Context) {
	var wg sync.WaitGroup
	for _, t := range p.targets {
		wg.Go(func() { p.runTarget(ctx, t) })
	}
	wg.Wait()
}

func (p *AlertPusher) runTarget(ctx context.Context, t *amTarget) {
	ticker := time.NewTicker(p.opts.ResendInterval)
	defer ticker.Stop()
	log := p.opts.Logger.With(zap.String("alertmanager", t.url))
	for {
		select {
		case <-ctx.Done():
			return
		case <-t.wake:
		case <-ticker.C:
		}
		delay := p.opts.MinBackoff
		for {
			err := p.pushTo(ctx, t)
			if err == nil || ctx.Err() != nil {
				break
			}
			log.Warn("sending alerts failed, retrying", zap.Duration("duration", delay), zap.Error(err))
			timer := time.NewTimer(delay)
			select {
			case <-ctx.Done():
				timer.Stop()
				return
			case <-timer.C:
			}
			delay = min(2*delay, p.opts.MaxBackoff)
		}
	}
}
