// Package alertmanager pushes partmon's key-level findings to Alertmanager's
// v2 API as alerts: sent at once after each cycle, re-sent while active,
// resolved when the finding goes away, retried with backoff.
package alertmanager

import (
	"context"
	"errors"
	"net/http"
	"slices"
	"sync"
	"time"

	"github.com/prometheus/client_golang/prometheus"
	"go.uber.org/zap"

	"github.com/partmon/partmon/analyzer"
	"github.com/partmon/partmon/analyzer/finding"
	"github.com/partmon/partmon/publish"
)

const (
	defaultResendInterval = time.Minute
	defaultTimeout        = 10 * time.Second
	defaultMinBackoff     = time.Second
)

// Names of the Pusher's own counters.
var (
	alertsPushedName = prometheus.BuildFQName("partmon", "", "alerts_pushed_total")
	errorsName       = prometheus.BuildFQName("partmon", "", "alertmanager_errors_total")
)

// MetricNames lists the metric families the Pusher publishes (sorted).
func MetricNames() []string { return []string{errorsName, alertsPushedName} }

// Options configure a Pusher.
type Options struct {
	// URLs are Alertmanager base URLs (http://am:9093); alerts go to each of
	// them, as Prometheus does, since Alertmanager peers deduplicate.
	URLs []string
	// MinSeverity is the least severe finding pushed; zero means warning.
	MinSeverity finding.Severity
	// Kinds are pushed even without a partition key; nil means DefaultAlertKinds.
	Kinds []string
	// ResendInterval is how often active alerts are re-sent (default 1m);
	// each carries endsAt = now + 3×ResendInterval.
	ResendInterval time.Duration
	// Cluster, Mode and SpeakFor mean what they mean for the exporter: a
	// sidecar pushes only its own node's findings (and node-less ones).
	Cluster  string
	Mode     publish.Mode
	SpeakFor []string
	// Datacenters, in cluster mode, are the DCs this partmon speaks for
	// (collector.datacenters; empty: every DC).
	Datacenters []string
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

// Pusher pushes key-level findings to Alertmanager. Update never blocks on
// the network: Run's goroutines send, re-send and retry.
type Pusher struct {
	opts     Options
	audience publish.Audience
	kinds    map[string]bool
	template alertTemplate
	book     *book
	targets  []*target

	pushed prometheus.Counter
	errors prometheus.Counter
}

var _ prometheus.Collector = (*Pusher)(nil)

// target is one Alertmanager and the signal that it has something to receive.
type target struct {
	client
	wake chan struct{}
}

// New checks the URLs and builds a pusher; call Run to start sending.
func New(opts Options) (*Pusher, error) {
	opts = withDefaults(opts)
	p := &Pusher{
		opts:     opts,
		audience: publish.NewAudience(opts.Cluster, opts.Mode, opts.SpeakFor).ForDatacenters(opts.Datacenters),
		kinds:    make(map[string]bool, len(opts.Kinds)),
		template: alertTemplate{runbookURL: opts.RunbookURL, externalURL: opts.ExternalURL},
		pushed: prometheus.NewCounter(prometheus.CounterOpts{Name: alertsPushedName,
			Help: "Alerts accepted by Alertmanager (counted once per Alertmanager and send)."}),
		errors: prometheus.NewCounter(prometheus.CounterOpts{Name: errorsName,
			Help: "Failed attempts to send alerts to an Alertmanager."}),
	}
	for _, k := range opts.Kinds {
		p.kinds[k] = true
	}
	urls := make([]string, 0, len(opts.URLs))
	for _, raw := range opts.URLs {
		u, err := alertsURL(raw)
		if err != nil {
			return nil, err
		}
		urls = append(urls, u)
		p.targets = append(p.targets, &target{client: client{url: u, http: opts.Client, timeout: opts.Timeout},
			wake: make(chan struct{}, 1)})
	}
	p.book = newBook(opts.ResendInterval, urls)
	return p, nil
}

func withDefaults(opts Options) Options {
	if opts.MinSeverity == finding.SeverityNone {
		opts.MinSeverity = finding.SeverityWarning
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
		opts.Timeout = defaultTimeout
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
	return opts
}

// Describe and Collect expose the pusher's own counters.
func (p *Pusher) Describe(ch chan<- *prometheus.Desc) {
	p.pushed.Describe(ch)
	p.errors.Describe(ch)
}

func (p *Pusher) Collect(ch chan<- prometheus.Metric) {
	p.pushed.Collect(ch)
	p.errors.Collect(ch)
}

// Update takes the findings of a new report: new ones become active alerts,
// vanished ones are resolved. A nil or failed report changes nothing (a
// collection failure is no proof a problem went away). It never blocks.
func (p *Pusher) Update(r *analyzer.Report) {
	if r == nil || publish.Failed(r) {
		return
	}
	speaks := p.audience.NodeFilter(r)
	cluster := p.audience.ClusterName(r)
	var alerts []keyedAlert
	for _, pr := range analyzer.ProblemsIn(r) {
		// One alert per problem: the kinds one partition shows are one.
		if p.pushesProblem(pr, speaks) {
			alerts = append(alerts, keyedAlert{key: alertKey(pr.Finding), alert: p.sharedAlert(pr.Finding, p.template.alertForProblem(pr, cluster))})
		}
	}
	p.book.update(alerts, p.opts.Now().UTC())
	for _, t := range p.targets {
		select {
		case t.wake <- struct{}{}:
		default: // a send is already due
		}
	}
}

// sharedAlert: in sidecar mode the other replicas' sidecars push the same
// problem, each from its own node; in cluster mode for some DCs, the
// partmons of the other DCs (or of overlapping ones) from theirs. Without
// the labels of the one node (and of its DC, unless the problem is judged
// within one) their alerts and this one are one alert in Alertmanager, as
// the folded finding of a single partmon in cluster mode is.
func (p *Pusher) sharedAlert(f finding.Finding, a postableAlert) postableAlert {
	if !p.audience.Shared() {
		return a
	}
	if !f.IDNamesNode {
		delete(a.Labels, "node")
	}
	if !f.IDNamesDC {
		delete(a.Labels, "dc")
	}
	return a
}

// pushesProblem: the problem's face passes the severity and node filters
// (a sidecar speaks for the face's node, so one sidecar pushes it) and one
// of its kinds is pushed.
func (p *Pusher) pushesProblem(pr analyzer.Problem, speaks func(string) bool) bool {
	return slices.ContainsFunc(pr.Evidence, func(f finding.Finding) bool {
		f.Severity, f.Node, f.Nodes, f.DC = pr.Severity, pr.Node, pr.Nodes, pr.DC
		return p.pushes(f, speaks)
	})
}

func (p *Pusher) pushes(f finding.Finding, speaks func(string) bool) bool {
	if f.Severity < p.opts.MinSeverity || !publish.SpeaksForFinding(f, speaks) {
		return false
	}
	return f.PartitionKey != "" || p.kinds[f.Kind]
}

// pushTo sends target t its payload once.
func (p *Pusher) pushTo(ctx context.Context, t *target) error {
	alerts, included := p.book.payload(t.url, p.opts.Now().UTC())
	if len(alerts) == 0 {
		return nil
	}
	if err := t.post(ctx, alerts); err != nil {
		p.errors.Inc()
		return err
	}
	p.pushed.Add(float64(len(alerts)))
	p.book.delivered(t.url, included)
	return nil
}

// PushOnce sends every target its payload once, without retrying.
func (p *Pusher) PushOnce(ctx context.Context) error {
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
func (p *Pusher) Run(ctx context.Context) {
	var wg sync.WaitGroup
	for _, t := range p.targets {
		wg.Go(func() { p.runGuarded(ctx, t) })
	}
	wg.Wait()
}

// runGuarded runs runTarget, and again a second after a panic (a partmon
// bug, logged through the pusher's scrubbing logger): one Alertmanager's
// answer must never take the process down, nor stop the pushes.
func (p *Pusher) runGuarded(ctx context.Context, t *target) {
	for {
		if !p.panicked(t, func() { p.runTarget(ctx, t) }) {
			return
		}
		select {
		case <-ctx.Done():
			return
		case <-time.After(time.Second):
		}
		select {
		case t.wake <- struct{}{}: // what the panic interrupted is sent again at once
		default:
		}
	}
}

func (p *Pusher) panicked(t *target, f func()) (panicked bool) {
	defer func() {
		if r := recover(); r != nil {
			panicked = true
			p.opts.Logger.Error("alert pusher panicked, restarting it in a second; a partmon bug, please report it",
				zap.String("alertmanager", t.url), zap.Any("panic", r), zap.Stack("stack"))
		}
	}()
	f()
	return false
}

func (p *Pusher) runTarget(ctx context.Context, t *target) {
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
