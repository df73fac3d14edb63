package ingest

import (
	"bytes"
	"fmt"
	"math"
	"strconv"
	"unsafe"
)

// ParseError reports bad input. It names the file, the 1-based line and the
// field, and quotes the offending token verbatim.
type ParseError struct {
	// File is the source the line came from (a path, or "archive.zip!Fold1/train.txt").
	File string
	// Line is the 1-based line number within File (0 when the error is not
	// about one line, e.g. empty input).
	Line int64
	// Field names the part of the line that is wrong: "label", "qid",
	// "feature 12", "comment" or "line".
	Field string
	// Token is the offending token, verbatim.
	Token string
	// Msg says what is wrong with it.
	Msg string
}

// Error formats the error as "file:line: field: message: "token"".
func (e *ParseError) Error() string {
	return fmt.Sprintf("%s:%d: %s: %s: %q", e.File, e.Line, e.Field, e.Msg, e.Token)
}

// fieldError is a ParseError before the file and line are known.
type fieldError struct {
	field, token, msg string
}

func (e *fieldError) at(file string, line int64) *ParseError {
	return &ParseError{File: file, Line: line, Field: e.field, Token: e.token, Msg: e.msg}
}

func ferr(field string, token []byte, format string, args ...any) *fieldError {
	return &fieldError{field: field, token: string(token), msg: fmt.Sprintf(format, args...)}
}

// maxFeatureIndex bounds feature indices so that a corrupt token cannot make
// us allocate absurd rows.
const maxFeatureIndex = 1 << 16

// parsedLine holds the non-feature parts of one data line.
type parsedLine struct {
	label   int32
	qid     int64
	comment []byte // text after '#', trimmed; nil when absent
	last    int    // largest feature index given (0: none)
	given   int    // number of features given
}

// trimLine removes a trailing CR and trailing blanks.
func trimLine(b []byte) []byte {
	for len(b) > 0 {
		switch b[len(b)-1] {
		case '\r', ' ', '\t', '\n':
			b = b[:len(b)-1]
		default:
			return b
		}
	}
	return b
}

// isBlank reports whether a line holds nothing but blanks or only a comment
// (such lines are skipped, as in SVMlight).
func isBlank(b []byte) bool {
	for _, c := range b {
		switch c {
		case ' ', '\t', '\r', '\n':
		case '#':
			return true
		default:
			return false
		}
	}
	return true
}

// nextToken returns the next blank-separated token of b starting at i and
// the index just past it.
func nextToken(b []byte, i int) ([]byte, int) {
	for i < len(b) && (b[i] == ' ' || b[i] == '\t') {
		i++
	}
	j := i
	for j < len(b) && b[j] != ' ' && b[j] != '\t' {
		j++
	}
	return b[i:j], j
}

// bstr views b as a string without copying; the string must not outlive b.
func bstr(b []byte) string {
	if len(b) == 0 {
		return ""
	}
	return unsafe.String(&b[0], len(b))
}

// splitComment splits a line at its first '#'.
func splitComment(line []byte) (data, comment []byte) {
	if k := bytes.IndexByte(line, '#'); k >= 0 {
		return line[:k], bytes.TrimSpace(line[k+1:])
	}
	return line, nil
}

// parseLabel parses an integer relevance label in [0, labelMax]: the
// label rule of every input format (a Parquet value is spelled in decimal
// first).
func parseLabel(tok []byte, labelMax int) (int32, *fieldError) {
	if len(tok) == 0 {
		return 0, ferr("label", tok, "missing label")
	}
	n, err := strconv.ParseInt(bstr(tok), 10, 64)
	if err != nil {
		f, ferr2 := strconv.ParseFloat(bstr(tok), 64)
		if ferr2 != nil || math.IsNaN(f) || math.IsInf(f, 0) {
			return 0, ferr("label", tok, "label is not a number")
		}
		if f != math.Trunc(f) {
			return 0, ferr("label", tok, "label is not an integer")
		}
		if f < 0 || f > float64(labelMax) {
			return 0, ferr("label", tok, "label out of range 0..%d", labelMax)
		}
		n = int64(f)
	}
	if n < 0 || n > int64(labelMax) {
		return 0, ferr("label", tok, "label out of range 0..%d", labelMax)
	}
	return int32(n), nil
}

// parseQID parses a "qid:N" token.
func parseQID(tok []byte) (int64, *fieldError) {
	if len(tok) == 0 {
		return 0, ferr("qid", tok, "missing qid (expected qid:N after the label)")
	}
	if !bytes.HasPrefix(tok, []byte("qid:")) {
		return 0, ferr("qid", tok, "missing qid (expected qid:N after the label)")
	}
	q, fe := parseQIDValue(tok[4:])
	if fe != nil {
		fe.token = string(tok)
	}
	return q, fe
}

// parseQIDValue parses a query id: an integer 0..2^63-1. It is the qid
// rule of every input format (a Parquet value is spelled in decimal
// first).
func parseQIDValue(tok []byte) (int64, *fieldError) {
	q, err := strconv.ParseInt(bstr(tok), 10, 64)
	if err != nil || q < 0 {
		return 0, ferr("qid", tok, "malformed qid (expected a non-negative integer)")
	}
	return q, nil
}

// parseFeatureIndex parses the index part of "i:v".
func parseFeatureIndex(tok []byte) (idx int, colon int, fe *fieldError) {
	colon = bytes.IndexByte(tok, ':')
	if colon <= 0 {
		return 0, 0, ferr("feature", tok, "malformed feature (expected index:value)")
	}
	// Fast path: plain decimal digits.
	n := 0
	for _, c := range tok[:colon] {
		if c < '0' || c > '9' {
			return 0, 0, ferr("feature", tok, "malformed feature index (expected a positive integer)")
		}
		n = n*10 + int(c-'0')
		if n > maxFeatureIndex {
			return 0, 0, ferr("feature", tok, "feature index out of range 1..%d", maxFeatureIndex)
		}
	}
	return n, colon, nil
}

// parseValue parses a finite float64 feature value: the feature rule of
// every input format (a Parquet value that is not exactly a finite
// float64 is spelled in decimal first).
func parseValue(field string, tok, val []byte) (float64, *fieldError) {
	v, err := strconv.ParseFloat(bstr(val), 64)
	if err != nil {
		if ne, ok := err.(*strconv.NumError); ok && ne.Err == strconv.ErrRange {
			return 0, ferr(field, tok, "value out of float64 range")
		}
		return 0, ferr(field, tok, "value is not a number")
	}
	if math.IsNaN(v) || math.IsInf(v, 0) {
		return 0, ferr(field, tok, "value is NaN or infinite")
	}
	return v, nil
}

// parseLine parses one data line (no newline; trailing CR and blanks are
// allowed) into feats, which must have one slot per feature f1..fN. Missing
// features are set to 0. Feature indices must be in 1..len(feats) and
// strictly increasing.
func parseLine(line []byte, feats []float64, labelMax int) (parsedLine, *fieldError) {
	var pl parsedLine
	data, comment := splitComment(trimLine(line))
	pl.comment = comment
	tok, i := nextToken(data, 0)
	lab, fe := parseLabel(tok, labelMax)
	if fe != nil {
		return pl, fe
	}
	pl.label = lab
	tok, i = nextToken(data, i)
	if pl.qid, fe = parseQID(tok); fe != nil {
		return pl, fe
	}
	n := len(feats)
	next := 1 // smallest index allowed next
	for {
		for i < len(data) && (data[i] == ' ' || data[i] == '\t') {
			i++
		}
		if i >= len(data) {
			break
		}
		// Fast path for the usual "index:decimal" token; anything unusual
		// (and every error) goes through the careful path below.
		if idx, v, end, ok := fastFeature(data, i); ok && idx >= next && idx <= n {
			for k := next; k < idx; k++ {
				feats[k-1] = 0
			}
			feats[idx-1] = v
			next = idx + 1
			i = end
			pl.given++
			continue
		}
		tok, i = nextToken(data, i)
		idx, colon, fe := parseFeatureIndex(tok)
		if fe != nil {
			return pl, fe
		}
		switch {
		case idx < 1 || idx > n:
			return pl, ferr(featureField(idx), tok, "feature index out of range 1..%d", n)
		case idx < next:
			if idx == next-1 {
				return pl, ferr(featureField(idx), tok, "feature index repeated")
			}
			return pl, ferr(featureField(idx), tok, "feature index decreasing (after %d)", next-1)
		}
		for k := next; k < idx; k++ {
			feats[k-1] = 0
		}
		v, ok := fastFloat(tok[colon+1:])
		if !ok {
			var fe *fieldError
			if v, fe = parseValue(featureField(idx), tok, tok[colon+1:]); fe != nil {
				return pl, fe
			}
		}
		feats[idx-1] = v
		next = idx + 1
		pl.given++
	}
	for k := next; k <= n; k++ {
		feats[k-1] = 0
	}
	pl.last = next - 1
	return pl, nil
}

// rowRule says what a data line with fewer features than the schema
// means. The dense formats (MSLR-WEB, LETOR 4.0) list every feature on
// every line: a short line is damage (a cut line, an edited file) and an
// error, unless AllowRagged accepts it (zero-filled, and counted in the
// manifest). SVMlight-style input is sparse by definition: an absent
// feature is 0.
type rowRule struct {
	dense       bool
	allowRagged bool
}

// newRowRule returns the rule of a format.
func newRowRule(format string, allowRagged bool) rowRule {
	return rowRule{dense: format == FormatMSLR || format == FormatLETOR4, allowRagged: allowRagged}
}

// check returns the error of a line with fewer features than nfeat under
// the rule, or ragged = true when the rule accepts it.
func (r rowRule) check(pl parsedLine, nfeat int) (fe *fieldError, ragged bool) {
	if !r.dense || pl.given >= nfeat {
		return nil, false
	}
	if r.allowRagged {
		return nil, true
	}
	field := "features"
	if pl.last < nfeat {
		field = featureField(pl.last + 1)
	}
	return ferr(field, nil, "the line has %d of the format's %d features (highest index %d): a short row is not zero-filled; --allow-ragged accepts such rows and records them in manifest.json", pl.given, nfeat, pl.last), false
}

// countFeatures returns the largest feature index on a line, validating the
// label, qid and indices the same way parseLine does (used on the first line
// to size the schema).
func countFeatures(line []byte, labelMax int) (int, *fieldError) {
	data, _ := splitComment(trimLine(line))
	tok, i := nextToken(data, 0)
	if _, fe := parseLabel(tok, labelMax); fe != nil {
		return 0, fe
	}
	tok, i = nextToken(data, i)
	if _, fe := parseQID(tok); fe != nil {
		return 0, fe
	}
	maxIdx := 0
	for {
		tok, i = nextToken(data, i)
		if len(tok) == 0 {
			break
		}
		idx, _, fe := parseFeatureIndex(tok)
		if fe != nil {
			return 0, fe
		}
		if idx < 1 {
			return 0, ferr("feature "+strconv.Itoa(idx), tok, "feature index out of range 1..%d", maxFeatureIndex)
		}
		if idx > maxIdx {
			maxIdx = idx
		}
	}
	if maxIdx == 0 {
		return 0, ferr("feature", data, "line has no features")
	}
	return maxIdx, nil
}

// indexNL returns the index of the first '\n' in b, or -1.
func indexNL(b []byte) int { return bytes.IndexByte(b, '\n') }

// countNL counts the '\n' in b.
func countNL(b []byte) int { return bytes.Count(b, []byte{'\n'}) }

// featureField names feature idx in errors.
func featureField(idx int) string { return "feature " + strconv.Itoa(idx) }

// pow10 holds the exactly representable powers of ten.
var pow10 = [...]float64{1e0, 1e1, 1e2, 1e3, 1e4, 1e5, 1e6, 1e7, 1e8, 1e9, 1e10,
	1e11, 1e12, 1e13, 1e14, 1e15, 1e16, 1e17, 1e18, 1e19, 1e20, 1e21, 1e22}

// fastFloat parses the common plain decimal form [+-]digits[.digits] with at
// most 15 significant digits. Such a value is m / 10^k with m < 2^53 and
// k <= 22, both exact in float64, so one IEEE division gives the correctly
// rounded result, identical to strconv.ParseFloat (the same "exact" fast
// path strconv takes). ok is false for any other form; the caller then
// falls back to strconv.ParseFloat.
func fastFloat(b []byte) (v float64, ok bool) {
	i := 0
	neg := false
	if len(b) > 0 && (b[0] == '-' || b[0] == '+') {
		neg = b[0] == '-'
		i++
	}
	var mant uint64
	digits, frac := 0, 0
	sawDot, sawDigit := false, false
	for ; i < len(b); i++ {
		c := b[i]
		switch {
		case c >= '0' && c <= '9':
			sawDigit = true
			if mant == 0 && c == '0' {
				// Leading zeros are not significant.
			} else {
				digits++
				if digits > 15 {
					return 0, false
				}
				mant = mant*10 + uint64(c-'0')
			}
			if sawDot {
				frac++
			}
		case c == '.' && !sawDot:
			sawDot = true
		default:
			return 0, false
		}
	}
	if !sawDigit || frac > 22 {
		return 0, false
	}
	v = float64(mant) / pow10[frac]
	if neg {
		v = -v
	}
	return v, true
}

// fastFeature parses an "index:value" token starting at data[i] when it has
// the plain form digits ':' [+-]digits[.digits] with at most 15 significant
// digits, ending at a blank or the end of data. It returns the index, the
// value (exactly as strconv.ParseFloat would), and the position after the
// token. ok is false for any other form.
func fastFeature(data []byte, i int) (idx int, v float64, end int, ok bool) {
	j := i
	for j < len(data) && data[j] >= '0' && data[j] <= '9' {
		idx = idx*10 + int(data[j]-'0')
		j++
		if idx > maxFeatureIndex {
			return 0, 0, 0, false
		}
	}
	if j == i || j >= len(data) || data[j] != ':' {
		return 0, 0, 0, false
	}
	j++
	neg := false
	if j < len(data) && (data[j] == '-' || data[j] == '+') {
		neg = data[j] == '-'
		j++
	}
	var mant uint64
	digits, frac := 0, 0
	sawDot, sawDigit := false, false
	for ; j < len(data); j++ {
		c := data[j]
		if c >= '0' && c <= '9' {
			sawDigit = true
			if mant != 0 || c != '0' {
				digits++
				if digits > 15 {
					return 0, 0, 0, false
				}
				mant = mant*10 + uint64(c-'0')
			}
			if sawDot {
				frac++
			}
			continue
		}
		if c == '.' && !sawDot {
			sawDot = true
			continue
		}
		if c == ' ' || c == '\t' {
			break
		}
		return 0, 0, 0, false
	}
	if !sawDigit || frac > 22 {
		return 0, 0, 0, false
	}
	v = float64(mant) / pow10[frac]
	if neg {
		v = -v
	}
	return idx, v, j, true
}
