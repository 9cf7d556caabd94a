// Package limits holds the step budgets and store caps of SPEC sections 2 and
// 6, with their defaults in one place, the escaped-size measure that the
// step budget counts, and the JSON string encoder that answers share with
// that measure (AppendJSONString).
package limits

import (
	"flag"
	"fmt"
	"strconv"
	"time"
)

// Config is every limit of SPEC section 2. Sizes are bytes.
type Config struct {
	MaxLookups      int64
	MaxLookupBytes  int64
	MaxStepBytes    int64
	MaxExpandBytes  int64
	MaxResultBytes  int64
	MaxStoreBytes   int64
	MaxResults      int64
	PreviewBytes    int64
	PageSize        int64
	MaxTotalBytes   int64
	MaxMessageBytes int64
	IdleTimeout     time.Duration
	RunTimeout      time.Duration
}

// Defaults returns the defaults of SPEC section 2.
func Defaults() Config {
	return Config{
		MaxLookups:      8,
		MaxLookupBytes:  8 << 10,
		MaxStepBytes:    64 << 10,
		MaxExpandBytes:  16 << 20,
		MaxResultBytes:  16 << 20,
		MaxStoreBytes:   64 << 20,
		MaxResults:      1024,
		PreviewBytes:    1024,
		PageSize:        16,
		MaxTotalBytes:   1 << 30,
		MaxMessageBytes: 32 << 20,
		IdleTimeout:     30 * time.Minute,
		RunTimeout:      10 * time.Minute,
	}
}

// Limit is one limit that begin_step reports, by its name without dashes and
// with "_" for "-".
type Limit struct {
	Name  string
	Value int64
}

// Step returns the nine limits that begin_step reports (SPEC section 5), in
// the order of SPEC section 2.
func (c Config) Step() []Limit {
	return []Limit{
		{"max_lookups", c.MaxLookups},
		{"max_lookup_bytes", c.MaxLookupBytes},
		{"max_step_bytes", c.MaxStepBytes},
		{"max_expand_bytes", c.MaxExpandBytes},
		{"max_result_bytes", c.MaxResultBytes},
		{"max_store_bytes", c.MaxStoreBytes},
		{"max_results", c.MaxResults},
		{"preview_bytes", c.PreviewBytes},
		{"page_size", c.PageSize},
	}
}

// Register adds every limit flag to fs, writing into c; c's current values
// are the defaults shown in the usage text.
func (c *Config) Register(fs *flag.FlagSet) {
	fs.Var(count{&c.MaxLookups, 0}, "max-lookups", "lookups per step")
	fs.Var(count{&c.MaxLookupBytes, 0}, "max-lookup-bytes", "UTF-8 bytes one lookup may return")
	fs.Var(count{&c.MaxStepBytes, 0}, "max-step-bytes", "escaped bytes all lookups of a step may return")
	fs.Var(count{&c.MaxExpandBytes, 0}, "max-expand-bytes", "bytes expand_edit may expand in one step")
	fs.Var(count{&c.MaxResultBytes, 0}, "max-result-bytes", "bytes of one result")
	fs.Var(count{&c.MaxStoreBytes, 0}, "max-store-bytes", "bytes of all results of a session")
	fs.Var(count{&c.MaxResults, 0}, "max-results", "results of a session")
	fs.Var(count{&c.PreviewBytes, 0}, "preview-bytes", "bytes of a descriptor's preview")
	fs.Var(count{&c.PageSize, 1}, "page-size", "list_results entries a page (at least 1)")
	fs.Var(count{&c.MaxTotalBytes, 0}, "max-total-bytes", "bytes of all sessions of the process together")
	fs.Var(count{&c.MaxMessageBytes, 0}, "max-message-bytes", "bytes of one JSON-RPC message")
	fs.DurationVar(&c.IdleTimeout, "idle-timeout", c.IdleTimeout, "end an HTTP session silent this long (0 = never)")
	fs.Var(atLeast{&c.RunTimeout, MinRunTimeout}, "run-timeout", "end a command of run that runs longer than this `duration` (at least 1s)")
}

// MinRunTimeout is the shortest --run-timeout (SPEC section 2).
const MinRunTimeout = time.Second

// atLeast is a flag.Value for a duration of at least min.
type atLeast struct {
	p   *time.Duration
	min time.Duration
}

func (a atLeast) String() string {
	if a.p == nil {
		return "0s"
	}
	return a.p.String()
}

// Get returns the duration (flag.Getter).
func (a atLeast) Get() any { return *a.p }

func (a atLeast) Set(s string) error {
	d, err := time.ParseDuration(s)
	if err != nil {
		return fmt.Errorf("%q is not a duration (10m, 90s)", s)
	}
	if d < a.min {
		return fmt.Errorf("%q is below the minimum %s", s, a.min)
	}
	*a.p = d
	return nil
}

// Count returns a flag.Value that sets *p to a decimal integer of at least
// min, as the limit flags take theirs: no sign, no hex or octal.
func Count(p *int64, min int64) flag.Value { return count{p, min} }

// count is a flag.Value for a decimal integer of at least min; unlike
// flag.Int64 it refuses signs, hex and octal.
type count struct {
	p   *int64
	min int64
}

func (c count) String() string {
	if c.p == nil {
		return "0"
	}
	return strconv.FormatInt(*c.p, 10)
}

func (c count) Set(s string) error {
	for i := 0; i < len(s); i++ {
		if s[i] < '0' || s[i] > '9' {
			return fmt.Errorf("%q is not a non-negative decimal integer", s)
		}
	}
	v, err := strconv.ParseInt(s, 10, 64)
	if err != nil {
		return fmt.Errorf("%q is not a non-negative decimal integer", s)
	}
	if v < c.min {
		return fmt.Errorf("%q is below the minimum %d", s, c.min)
	}
	*c.p = v
	return nil
}
