package perfbench

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"time"
)

// coldRound times fresh servers (start, inspect of text and JSON at every
// size, the first pointer, a re-inspect of the unchanged text), the
// processes and the in-memory hash they are compared with, and the peak
// RSS of a full store. Each loom measure comes before its reference in the
// same round, so that the rounds interleave them (A B A B).
func (r *runner) coldRound(ctx context.Context) error {
	add := func(key string, v float64) { r.rows[key].Loom = append(r.rows[key].Loom, v) }
	base := func(key string, v float64) { r.rows[key].BaseSamples = append(r.rows[key].BaseSamples, v) }

	// Cold: fresh servers first. Every cold measure starts on a settled
	// machine: the processes of the calls before it (server-filesystem
	// collecting a 2.6 MB answer, a server exiting) still work for tens of
	// milliseconds after answering, on the same two cores.
	var fresh16 float64
	err := r.withFresh(ctx, func(s *session) error {
		add("ready", ms(s.Ready))
		ds, a, err := inspect(ctx, s, "big.txt")
		if err != nil {
			return err
		}
		if ds[0].Reused || !ds[0].Retained {
			return fmt.Errorf("inspect big.txt in a fresh server: reused %v, retained %v", ds[0].Reused, ds[0].Retained)
		}
		if ds[0].SHA256 != r.bigSHA {
			return fmt.Errorf("inspect big.txt: sha256 %s, want %s", ds[0].SHA256, r.bigSHA)
		}
		fresh16 = ms(a.Elapsed)
		add("inspect", fresh16)
		add("sha", fresh16)
		base("reinspect", fresh16)
		r.sizeTimes[r.cfg.InspectBytes] = append(r.sizeTimes[r.cfg.InspectBytes], fresh16)
		// The same server, live, inspects the unchanged file again.
		settle()
		ds, a, err = inspect(ctx, s, "big.txt")
		if err != nil {
			return err
		}
		if !ds[0].Reused || ds[0].ID == nil || *ds[0].ID != "r1" {
			return fmt.Errorf("re-inspect of the unchanged big.txt: reused %v, id %v; want r1 reused", ds[0].Reused, ds[0].ID)
		}
		add("reinspect", ms(a.Elapsed))
		return nil
	})
	if err != nil {
		return err
	}

	// A fresh server for the JSON document: its inspect, then its first
	// pointer.
	pointerItem := r.c.JSONItems - 10
	var loomOut string
	err = r.withFresh(ctx, func(s *session) error {
		_, a, err := inspect(ctx, s, "big.json")
		if err != nil {
			return err
		}
		add("jsoninspect", ms(a.Elapsed))
		a, err = s.call(ctx, "get_json", `{"result":"r1","pointer":"/items/`+strconv.Itoa(pointerItem)+`/name"}`)
		if err != nil {
			return err
		}
		add("json1", ms(a.Elapsed))
		loomOut = a.Text
		return nil
	})
	if err != nil {
		return err
	}

	// The smaller sizes of the per-MiB row, each in a fresh server too.
	costs := []float64{fresh16 / mibs(r.cfg.InspectBytes)}
	for _, size := range r.cfg.InspectSizes {
		err := r.withFresh(ctx, func(s *session) error {
			_, a, err := inspect(ctx, s, r.c.Sized[size])
			if err != nil {
				return err
			}
			r.sizeTimes[size] = append(r.sizeTimes[size], ms(a.Elapsed))
			costs = append(costs, ms(a.Elapsed)/mibs(size))
			return nil
		})
		if err != nil {
			return err
		}
	}
	add("permib", slices.Max(costs))
	base("permib", slices.Min(costs))

	// Then the references (after the fresh servers, so that jq's second
	// of work and memory is not what a fresh server starts next to).
	if r.cfg.OpenSSL != "" {
		for _, f := range []struct{ key, name string }{{"inspect", "big.txt"}, {"jsoninspect", "big.json"}} {
			settle()
			d, _, err := timeProcess(ctx, []string{r.cfg.OpenSSL, "dgst", "-sha256", filepath.Join(r.c.Root, f.name)})
			if err != nil {
				return err
			}
			base(f.key, ms(d))
		}
	}
	settle()
	d, sum := hashInMemory(r.c.Big)
	if sum != r.bigSHA {
		return fmt.Errorf("SHA-256 in memory %s, loom %s", sum, r.bigSHA)
	}
	base("sha", ms(d))
	if r.cfg.JQ != "" {
		settle()
		d, out, err := timeProcess(ctx, []string{r.cfg.JQ, "-c", ".items[" + strconv.Itoa(pointerItem) + "].name", filepath.Join(r.c.Root, "big.json")})
		if err != nil {
			return err
		}
		base("json1", ms(d))
		if got := strings.TrimSpace(string(out)); got != loomOut {
			return fmt.Errorf("get_json gave %q, jq %q", loomOut, got)
		}
	}

	if r.cfg.FSServer != nil {
		settle()
		other, err := startSession(ctx, append(append([]string{}, r.cfg.FSServer...), r.c.Root))
		if err != nil {
			return err
		}
		other.close()
		base("ready", ms(other.Ready))
	}
	return r.peakRSS(ctx)
}

// withFresh starts a fresh server on a settled machine, hands it to f,
// and stops it.
func (r *runner) withFresh(ctx context.Context, f func(*session) error) error {
	settle()
	s, err := r.startLoom(ctx)
	if err != nil {
		return err
	}
	defer s.close()
	return f(s)
}

// hashInMemory times Go's SHA-256 over data, already in memory: the
// hashing limit of an inspect.
func hashInMemory(data []byte) (time.Duration, string) {
	t0 := time.Now()
	sum := sha256.Sum256(data)
	d := time.Since(t0)
	return d, hex.EncodeToString(sum[:])
}

// mibs is n bytes in MiB.
func mibs(n int) float64 { return float64(n) / (1 << 20) }

// sizeName names a size of the corpus (which may be 64 bytes short of a
// round one): "16 MiB", or "256 KiB" under 1 MiB.
func sizeName(n int) string {
	if n < 1<<20-1024 {
		return fmt.Sprintf("%.0f KiB", float64(n)/(1<<10))
	}
	return fmt.Sprintf("%.0f MiB", mibs(n))
}

// sizeNote is the per-MiB row's note: each size's median inspect speed.
func (r *runner) sizeNote() string {
	sizes := append([]int{}, r.cfg.InspectSizes...)
	sizes = append(sizes, r.cfg.InspectBytes)
	slices.Sort(sizes)
	var parts []string
	for _, size := range sizes {
		if t := Median(r.sizeTimes[size]); t > 0 {
			parts = append(parts, fmt.Sprintf("%s at %.2f GB/s", sizeName(size), float64(size)/(t*1e6)))
		}
	}
	return strings.Join(parts, ", ")
}

// peakRSS starts a fresh server, inspects the fill files one at a time
// until one is not retained (the store is full), and reads its VmHWM.
func (r *runner) peakRSS(ctx context.Context) error {
	s, err := r.startLoom(ctx, "--max-store-bytes", strconv.FormatInt(r.cfg.StoreBytes, 10))
	if err != nil {
		return err
	}
	defer s.close()
	var stored int64
	full := false
	for _, name := range r.c.Fill {
		ds, _, err := inspect(ctx, s, name)
		if err != nil {
			return err
		}
		if !ds[0].Retained {
			full = true
			break
		}
		stored += ds[0].Bytes
	}
	if !full {
		return fmt.Errorf("the store never filled after %d files", len(r.c.Fill))
	}
	hwm, err := s.vmHWM()
	if err != nil {
		return err
	}
	r.rows["rss"].Loom = append(r.rows["rss"].Loom, float64(hwm)/(1<<20))
	r.rows["rss"].BaseSamples = append(r.rows["rss"].BaseSamples, float64(stored)/(1<<20))
	return nil
}
