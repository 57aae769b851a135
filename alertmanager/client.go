package alertmanager

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"strings"
	"time"
)

const alertsPath = "/api/v2/alerts"

// client posts alerts to one Alertmanager's v2 API.
type client struct {
	url     string // full URL of the alerts endpoint
	http    *http.Client
	timeout time.Duration // bounds one POST
}

// alertsURL checks an Alertmanager base URL (http://am:9093, a path prefix
// allowed) and returns its alerts endpoint.
func alertsURL(raw string) (string, error) {
	u, err := url.Parse(strings.TrimSpace(raw))
	if err != nil {
		return "", fmt.Errorf("parsing alertmanager URL %q: %w", raw, err)
	}
	if (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
		return "", fmt.Errorf("alertmanager URL %q: want http(s)://host:port", raw)
	}
	u.Path = strings.TrimSuffix(u.Path, "/") + alertsPath
	return u.String(), nil
}

func (c client) post(ctx context.Context, alerts []postableAlert) error {
	body, err := json.Marshal(alerts)
	if err != nil {
		return fmt.Errorf("encoding %d alerts: %w", len(alerts), err)
	}
	ctx, cancel := context.WithTimeout(ctx, c.timeout)
	defer cancel()
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, c.url, bytes.NewReader(body))
	if err != nil {
		return fmt.Errorf("building request to %s: %w", c.url, err)
	}
	req.Header.Set("Content-Type", "application/json")
	resp, err := c.http.Do(req)
	if err != nil {
		return fmt.Errorf("posting %d alerts to %s: %w", len(alerts), c.url, err)
	}
	defer resp.Body.Close()
	msg, _ := io.ReadAll(io.LimitReader(resp.Body, 1024))
	if resp.StatusCode/100 != 2 {
		return fmt.Errorf("posting %d alerts to %s: %s: %s", len(alerts), c.url, resp.Status, strings.TrimSpace(string(msg)))
	}
	return nil
}
