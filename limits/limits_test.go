package limits

import (
	"bytes"
	"encoding/json"
	"flag"
	"io"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/loom-results/loom-results/errcode"
)

func TestEscapedSize(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name string
		text string
		want int64
	}{
		{"empty is two quotes", "", 2},
		{"plain ASCII", "abc", 5},
		{"quote and backslash", `"\`, 6},
		{"short escapes", "\b\f\n\r\t", 12},
		{"other controls take six", "\x00\x01\x1f", 20},
		{"DEL counts as itself", "\x7f", 3},
		{"C1 control counts as its UTF-8 bytes", "\u0085", 4},
		{"U+2028 counts as its UTF-8 bytes", "\u2028", 5},
		{"HTML characters are not escaped", "<>&", 5},
		{"multi-byte", "héllo", 8},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			assert.Equal(t, tt.want, EscapedSize(tt.text))
			assert.Equal(t, tt.want, EscapedSize([]byte(tt.text)))
			quoted := AppendEscaped(nil, tt.text)
			assert.Equal(t, tt.want, int64(len(quoted)), "EscapedSize measures AppendEscaped")
			wire, measured := AppendMeasured([]byte("x"), tt.text)
			assert.Equal(t, tt.want, measured, "AppendMeasured measures as EscapedSize does")
			assert.Equal(t, "x"+string(AppendJSONString(nil, tt.text, true)), string(wire), "and writes what AppendJSONString does")
			var back string
			require.NoError(t, json.Unmarshal(quoted, &back))
			assert.Equal(t, tt.text, back)
		})
	}
}

// TestAppendJSONString holds AppendJSONString to encoding/json's bytes,
// with and without HTML escaping, but for the 3-byte form of a lone
// surrogate, which it writes as its escape (every other invalid byte as
// \ufffd, as encoding/json does).
func TestAppendJSONString(t *testing.T) {
	t.Parallel()
	var every strings.Builder
	for c := range 0x80 {
		every.WriteByte(byte(c))
	}
	for r := rune(0x80); r < 0x3000; r += 7 {
		every.WriteRune(r)
	}
	for _, s := range []string{"", "plain", `"\`, "<a&b>", "\u2027\u2028\u2029", "\xe2\x80", "\xff", "héllo", every.String()} {
		for _, html := range []bool{true, false} {
			var want bytes.Buffer
			enc := json.NewEncoder(&want)
			enc.SetEscapeHTML(html)
			require.NoError(t, enc.Encode(s))
			assert.Equal(t, strings.TrimSuffix(want.String(), "\n"), string(AppendJSONString(nil, s, html)), "%q html=%v", s, html)
		}
	}
	for in, want := range map[string]string{
		"k\xed\xa0\x80":            `"k\ud800"`,
		"\xed\xb0\x80<":            `"\udc00<"`,
		"\xed\xa0":                 `"\ufffd\ufffd"`,
		"\xed\xa0\x80\xed\xb0\x80": `"\ud800\udc00"`,
	} {
		assert.Equal(t, want, string(AppendJSONString(nil, in, false)), "%q", in)
	}
}

func TestFlags(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name    string
		args    []string
		wantErr bool
		check   func(*testing.T, Config)
	}{
		{"defaults", nil, false, func(t *testing.T, c Config) { assert.Equal(t, Defaults(), c) }},
		{"a value", []string{"--max-lookups", "3"}, false, func(t *testing.T, c Config) { assert.Equal(t, int64(3), c.MaxLookups) }},
		{"zero allowed", []string{"--max-results", "0"}, false, func(t *testing.T, c Config) { assert.Equal(t, int64(0), c.MaxResults) }},
		{"negative refused", []string{"--max-lookups", "-1"}, true, nil},
		{"plus sign refused", []string{"--max-lookups", "+1"}, true, nil},
		{"hex refused", []string{"--max-lookups", "0x10"}, true, nil},
		{"not a number", []string{"--preview-bytes", "ten"}, true, nil},
		{"overflow", []string{"--max-store-bytes", "99999999999999999999"}, true, nil},
		{"page size zero refused", []string{"--page-size", "0"}, true, nil},
		{"page size one", []string{"--page-size", "1"}, false, func(t *testing.T, c Config) { assert.Equal(t, int64(1), c.PageSize) }},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			fs := flag.NewFlagSet("x", flag.ContinueOnError)
			fs.SetOutput(io.Discard)
			c := Defaults()
			c.Register(fs)
			err := fs.Parse(tt.args)
			if tt.wantErr {
				assert.Error(t, err)
				return
			}
			require.NoError(t, err)
			tt.check(t, c)
		})
	}
}

func TestStepLimits(t *testing.T) {
	t.Parallel()
	got := map[string]int64{}
	for _, l := range Defaults().Step() {
		got[l.Name] = l.Value
	}
	assert.Equal(t, map[string]int64{
		"max_lookups": 8, "max_lookup_bytes": 8192, "max_step_bytes": 65536,
		"max_expand_bytes": 16777216, "max_result_bytes": 16777216, "max_store_bytes": 67108864,
		"max_results": 1024, "preview_bytes": 1024, "page_size": 16,
	}, got)
}

func TestBudgetLookupCount(t *testing.T) {
	t.Parallel()
	cfg := Defaults()
	cfg.MaxLookups = 2
	b := NewBudget(cfg, ClientSteps)
	require.Nil(t, b.StartLookup())
	require.Nil(t, b.StartLookup())
	err := b.StartLookup()
	require.NotNil(t, err)
	assert.Equal(t, errcode.LookupLimit, err.Code)
	snap := b.Snapshot()
	assert.Equal(t, Snapshot{Step: 1, LookupsUsed: 3, LookupsLeft: 0, BytesLeft: 65536, ExpandBytesLeft: 16777216, Refused: true}, snap)

	err = b.StartLookup()
	require.NotNil(t, err)
	assert.Equal(t, errcode.StepRefused, err.Code)
	assert.Equal(t, int64(4), b.Snapshot().LookupsUsed)
	assert.Equal(t, errcode.StepRefused, b.CheckEdit().Code)

	assert.Equal(t, int64(2), b.BeginStep())
	assert.Equal(t, Snapshot{Step: 2, LookupsLeft: 2, BytesLeft: 65536, ExpandBytesLeft: 16777216}, b.Snapshot())
	assert.Nil(t, b.CheckEdit())
}

func TestBudgetZeroLookups(t *testing.T) {
	t.Parallel()
	cfg := Defaults()
	cfg.MaxLookups = 0
	for _, steps := range []Steps{ClientSteps, ModelSteps} {
		b := NewBudget(cfg, steps)
		err := b.StartLookup()
		require.NotNil(t, err)
		assert.Equal(t, errcode.LookupLimit, err.Code)
		assert.Equal(t, "lookups are off: this server runs with --max-lookups 0, so no step allows a lookup", err.Msg,
			"begin_step cannot help, so the message does not send the model there (%s)", steps)
		assert.Equal(t, errcode.Details{Limit: new(int64(0))}, err.Details)
	}
}

func TestBudgetCharge(t *testing.T) {
	t.Parallel()
	cfg := Defaults()
	cfg.MaxLookupBytes = 10
	cfg.MaxStepBytes = 20
	b := NewBudget(cfg, ClientSteps)

	size, escaped, err := b.Charge([]byte("a\nb"))
	require.Nil(t, err)
	assert.Equal(t, int64(3), size)
	assert.Equal(t, int64(6), escaped)

	err = b.Fits([]byte("01234567890"))
	require.NotNil(t, err)
	assert.Equal(t, errcode.LookupTooLarge, err.Code)
	assert.Equal(t, errcode.Details{Size: new(int64(11)), Limit: new(int64(10)), BytesLeft: new(int64(14))}, err.Details)
	assert.Equal(t, "the answer is 11 bytes, over the 10-byte lookup limit; select less (the step has 14 escaped bytes left)", err.Msg)

	// 10 UTF-8 bytes pass the first cap; escaped they are 2 + 10*2 = 22 > 14.
	_, _, err = b.Charge([]byte("\n\n\n\n\n\n\n\n\n\n"))
	require.NotNil(t, err)
	assert.Equal(t, errcode.StepBytesExhausted, err.Code)
	assert.Equal(t, errcode.Details{Size: new(int64(22)), Limit: new(int64(20)), BytesLeft: new(int64(14))}, err.Details)
	assert.Equal(t, "the answer is 22 escaped bytes, over the 14 left of the step's 20; select less or call begin_step", err.Msg)
	assert.Equal(t, int64(6), b.Snapshot().BytesUsed, "a failed charge adds nothing")

	_, escaped, err = b.Charge([]byte("0123456789"))
	require.Nil(t, err)
	assert.Equal(t, int64(12), escaped)
	assert.Equal(t, int64(2), b.Snapshot().BytesLeft)
	assert.False(t, b.Snapshot().Refused, "cap failures do not refuse the step")
}

// TestChargeSelected: a size error names the selection and what fits, as
// its Fit finds it in the room the lookup had.
func TestChargeSelected(t *testing.T) {
	t.Parallel()
	cfg := Defaults()
	cfg.MaxLookupBytes = 10
	cfg.MaxStepBytes = 20
	b := NewBudget(cfg, ClientSteps)
	var rooms []Room
	sel := Selected{What: "lines 3-9 are", Fit: func(r Room) (errcode.Fit, string) {
		rooms = append(rooms, r)
		return errcode.Fit{To: new(int64(5))}, "lines 3-5 fit"
	}}
	none := Selected{What: "line 3 is", Fit: func(Room) (errcode.Fit, string) { return errcode.Fit{}, "no line from 3 fits" }}
	tests := []struct {
		name          string
		sel           Selected
		size, escaped int64
		code          errcode.Code
		msg           string
		fits          *errcode.Fit
	}{
		{"lookup cap", sel, 11, 0, errcode.LookupTooLarge,
			"lines 3-9 are 11 bytes, over the 10-byte lookup limit; lines 3-5 fit (the step has 20 escaped bytes left)", &errcode.Fit{To: new(int64(5))}},
		{"step", sel, 10, 21, errcode.StepBytesExhausted,
			"lines 3-9 are 21 escaped bytes, over the 20 left of the step's 20; lines 3-5 fit, or call begin_step to start a new step with a fresh budget",
			&errcode.Fit{To: new(int64(5))}},
		{"nothing fits the step", none, 10, 21, errcode.StepBytesExhausted,
			"line 3 is 21 escaped bytes, over the 20 left of the step's 20; no line from 3 fits: call begin_step to start a new step with a fresh budget",
			&errcode.Fit{}},
		{"without a fit", Selected{What: "page 0 (3 results) is", Less: "ask for a smaller page_size"}, 11, 0, errcode.LookupTooLarge,
			"page 0 (3 results) is 11 bytes, over the 10-byte lookup limit; ask for a smaller page_size (the step has 20 escaped bytes left)", nil},
	}
	for _, tt := range tests {
		err := b.ChargeSelected(tt.sel, tt.size, tt.escaped)
		require.NotNil(t, err, tt.name)
		assert.Equal(t, tt.code, err.Code, tt.name)
		assert.Equal(t, tt.msg, err.Msg, tt.name)
		assert.Equal(t, tt.fits, err.Fits, tt.name)
	}
	assert.Equal(t, []Room{{10, 20}, {10, 20}}, rooms, "the room of the lookup")
	require.Nil(t, b.ChargeSelected(sel, 10, 20))
	assert.Equal(t, Room{10, 0}, b.Room())
	assert.Len(t, rooms, 2, "a lookup that fits looks for no fit")
}

func TestRoomAfter(t *testing.T) {
	t.Parallel()
	// A header of 6 bytes whose tab and newline escape to two bytes each:
	// 8 escaped bytes, the quotes counted once, with the rest.
	assert.Equal(t, Room{Bytes: 94, Escaped: 42}, Room{Bytes: 100, Escaped: 50}.After("r1	ab\n"))
	assert.Equal(t, Room{Bytes: 100, Escaped: 50}, Room{Bytes: 100, Escaped: 50}.After(""))
}

func TestEscapedPrefix(t *testing.T) {
	t.Parallel()
	tests := []struct {
		text    string
		room    int64
		n       int
		escaped int64
	}{
		{"abc", 3, 3, 3},
		{"abc", 2, 2, 2},
		{"abc", 0, 0, 0},
		{"abc", -1, 0, 0},
		{"a\nb", 3, 2, 3},  // the newline takes two
		{"a\nb", 2, 1, 1},  // and does not fit in one
		{"\x01x", 6, 1, 6}, // a control takes six
		{"\x01x", 5, 0, 0},
		{"é\"", 3, 2, 2}, // a multi-byte character counts as its bytes, cut or not
		{"é\"", 1, 1, 1},
		{"\u2028\x7f", 4, 4, 4}, // counted as themselves
	}
	for _, tt := range tests {
		n, escaped := EscapedPrefix([]byte(tt.text), tt.room)
		assert.Equal(t, tt.n, n, "%q in %d", tt.text, tt.room)
		assert.Equal(t, tt.escaped, escaped, "%q in %d", tt.text, tt.room)
		assert.LessOrEqual(t, EscapedSize(tt.text[:n])-2, max(tt.room, 0))
	}
}

func TestBudgetExpand(t *testing.T) {
	t.Parallel()
	cfg := Defaults()
	cfg.MaxExpandBytes = 100
	b := NewBudget(cfg, ClientSteps)
	require.Nil(t, b.ChargeExpand(60))
	err := b.ChargeExpand(41)
	require.NotNil(t, err)
	assert.Equal(t, errcode.ExpansionTooLarge, err.Code)
	assert.Equal(t, errcode.Details{Size: new(int64(41)), Limit: new(int64(100))}, err.Details)
	assert.Equal(t, int64(60), b.Snapshot().ExpandBytesUsed)
	assert.Equal(t, int64(40), b.Snapshot().ExpandBytesLeft)
	require.Nil(t, b.ChargeExpand(40))
	assert.False(t, b.Snapshot().Refused)
}
