package typedargs

// decimal is a JSON number's exact value read from its text: the integer
// mant (its digits without leading or trailing zeros, sig of them) times
// ten to the scale. When sig > 19, mant is not kept (big is set): such a
// value, when an integer, is beyond every int64.
type decimal struct {
	neg   bool
	mant  uint64
	sig   int
	big   bool
	scale int
}

// parseDecimal reads a number the scanner accepted, in one pass and without
// allocating.
func parseDecimal(text []byte) decimal {
	var d decimal
	i := 0
	if text[0] == '-' {
		d.neg = true
		i++
	}
	frac, pending := 0, 0 // digits after the point; zeros not yet added to mant
	inFrac, leading := false, true
	for ; i < len(text); i++ {
		c := text[i]
		if c == '.' {
			inFrac = true
			continue
		}
		if c == 'e' || c == 'E' {
			break
		}
		if inFrac {
			frac++
		}
		if c == '0' {
			if !leading {
				pending++
			}
			continue
		}
		leading = false
		for ; pending > 0; pending-- {
			d.addDigit(0)
		}
		d.addDigit(uint64(c - '0'))
	}
	exp := 0
	if i < len(text) {
		i++
		eneg := false
		if text[i] == '+' || text[i] == '-' {
			eneg = text[i] == '-'
			i++
		}
		for ; i < len(text); i++ {
			if exp < 1<<20 { // beyond any bound the caller lets through
				exp = exp*10 + int(text[i]-'0')
			}
		}
		if eneg {
			exp = -exp
		}
	}
	if d.sig == 0 {
		return decimal{} // zero, -0 included
	}
	d.scale = exp - frac + pending
	return d
}

func (d *decimal) addDigit(v uint64) {
	d.sig++
	if d.sig > 19 {
		d.big = true
		return
	}
	d.mant = d.mant*10 + v
}

// isInt reports whether d is an integer.
func (d decimal) isInt() bool { return d.sig == 0 || d.scale >= 0 }

// cmpInt compares d, an integer, with n: -1, 0 or 1.
func (d decimal) cmpInt(n int64) int {
	if d.sig == 0 {
		return cmpInt64(0, n)
	}
	if d.big || d.sig+d.scale > 19 { // at least 10^19: beyond every int64
		if d.neg {
			return -1
		}
		return 1
	}
	u := d.mant
	for range d.scale {
		u *= 10 // below 10^19: no overflow
	}
	if d.neg {
		if u > 1<<63 {
			return -1
		}
		return cmpInt64(int64(-u), n) //nolint:gosec // u <= 2^63, so -u is an int64
	}
	if u > 1<<63-1 {
		return 1
	}
	return cmpInt64(int64(u), n)
}

func cmpInt64(a, b int64) int {
	switch {
	case a < b:
		return -1
	case a > b:
		return 1
	}
	return 0
}

// within reports whether the number text is within b: at most MaxDigits
// digits before its exponent (leading zeros count) and an exponent of at
// most MaxExponent in magnitude (leading zeros do not count).
func (b Bounds) within(text []byte) bool {
	digits, i := 0, 0
	for ; i < len(text); i++ {
		c := text[i]
		if c == 'e' || c == 'E' {
			break
		}
		if c >= '0' && c <= '9' {
			if digits++; digits > b.MaxDigits {
				return false
			}
		}
	}
	if i >= len(text) {
		return true
	}
	exp := text[i+1:]
	if len(exp) > 0 && (exp[0] == '+' || exp[0] == '-') {
		exp = exp[1:]
	}
	for len(exp) > 1 && exp[0] == '0' {
		exp = exp[1:]
	}
	if len(exp) > 9 {
		return false
	}
	e := 0
	for _, c := range exp {
		e = e*10 + int(c-'0')
	}
	return e <= b.MaxExponent
}
