package jsontape

import (
	"strconv"
	"strings"
)

// Integer parses a JSON number lexeme (RFC 8259 section 6) and reports
// whether its value is an integer (1, 1.0, 1e3, -0.0), as tool arguments'
// integers are (SPEC section 5); values beyond int64 saturate at its
// bounds, so that a range check answers them.
func Integer(lex string) (int64, bool) {
	neg := strings.HasPrefix(lex, "-")
	s := strings.TrimPrefix(lex, "-")
	mant, exp10 := s, 0
	if i := strings.IndexAny(s, "eE"); i >= 0 {
		e, err := strconv.Atoi(strings.TrimPrefix(s[i+1:], "+"))
		if err != nil && !isDigits(strings.TrimLeft(s[i+1:], "+-")) {
			return 0, false
		}
		if err != nil { // an exponent beyond int: saturate its sign
			e = 1 << 30
			if strings.HasPrefix(s[i+1:], "-") {
				e = -e
			}
		}
		mant, exp10 = s[:i], e
	}
	intPart, frac, hasDot := strings.Cut(mant, ".")
	if intPart == "" || !isDigits(intPart) || hasDot && (frac == "" || !isDigits(frac)) ||
		len(intPart) > 1 && intPart[0] == '0' {
		return 0, false
	}
	digits := strings.TrimLeft(intPart+frac, "0")
	exp10 -= len(frac)
	trimmed := strings.TrimRight(digits, "0")
	exp10 += len(digits) - len(trimmed)
	digits = trimmed
	if digits == "" {
		return 0, true
	}
	if exp10 < 0 {
		return 0, false
	}
	if len(digits)+exp10 > 19 {
		return saturate(neg), true
	}
	var v uint64
	for _, c := range digits {
		v = v*10 + uint64(c-'0')
	}
	for range exp10 {
		v *= 10
	}
	if neg {
		if v > 1<<63 {
			return saturate(true), true
		}
		return int64(-v), true
	}
	if v > 1<<63-1 {
		return saturate(false), true
	}
	return int64(v), true
}

func saturate(neg bool) int64 {
	if neg {
		return -1 << 63
	}
	return 1<<63 - 1
}

func isDigits(s string) bool {
	if s == "" {
		return false
	}
	for i := 0; i < len(s); i++ {
		if s[i] < '0' || s[i] > '9' {
			return false
		}
	}
	return true
}
