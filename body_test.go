package toolexec

import (
	"errors"
	"io"
	"math"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestReadAllWhateverTheDeclaredLength(t *testing.T) {
	body := strings.Repeat("x", 1000)
	for _, declared := range []int64{-1, 0, 1, 999, 1000, 1001, 5000} {
		for _, limit := range []int64{1000, 1001, 4096, math.MaxInt64} {
			got, err := readAll(strings.NewReader(body), declared, limit)
			require.NoError(t, err, "declared %d, limit %d", declared, limit)
			assert.Equal(t, body, string(got), "declared %d, limit %d", declared, limit)
		}
	}
}

// onlyReader hides every method of a reader but Read.
type onlyReader struct{ io.Reader }

func TestReadAllStopsOneBytePastTheLimit(t *testing.T) {
	body := strings.Repeat("x", 5000)
	for _, declared := range []int64{-1, 0, 10, 999, 1000, 5000} {
		got, err := readAll(onlyReader{strings.NewReader(body)}, declared, 999)
		require.ErrorIs(t, err, errOverLimit, declared)
		assert.Len(t, got, 1000, "declared %d: reads the limit and one byte, no more", declared)
	}
}

func TestReadBodyOverTheLimitIsTooLargeAndClosesTheConnection(t *testing.T) {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		_, err := readBody(w, r, 10)
		e, ok := AsError(err)
		if !ok || e.Code != CodeTooLarge || e.Message != "Request body too large: the limit is 10 bytes" {
			w.WriteHeader(http.StatusInternalServerError)
			return
		}
		w.WriteHeader(http.StatusRequestEntityTooLarge)
	}))
	t.Cleanup(srv.Close)
	for name, declared := range map[string]bool{"chunked": false, "declared": true} {
		t.Run(name, func(t *testing.T) {
			var body io.Reader = onlyReader{strings.NewReader(strings.Repeat("x", 100))} // length unknown: chunked
			if declared {
				body = strings.NewReader(strings.Repeat("x", 100))
			}
			resp, err := srv.Client().Post(srv.URL, "text/plain", body)
			require.NoError(t, err)
			resp.Body.Close()
			assert.Equal(t, http.StatusRequestEntityTooLarge, resp.StatusCode)
			assert.True(t, resp.Close, "the server closes the connection rather than read the rest, as after http.MaxBytesReader")
		})
	}
}

func TestReadBodyUnderAHostLimitIsTooLarge(t *testing.T) {
	w := httptest.NewRecorder()
	r := httptest.NewRequest(http.MethodPost, "/", strings.NewReader(strings.Repeat("x", 100)))
	r.ContentLength = -1
	r.Body = http.MaxBytesReader(w, r.Body, 5)
	_, err := readBody(w, r, 10)
	e, ok := AsError(err)
	require.True(t, ok)
	assert.Equal(t, CodeTooLarge, e.Code)
}

func TestReadBodyFailureIsInvalidArguments(t *testing.T) {
	r := httptest.NewRequest(http.MethodPost, "/", io.MultiReader(strings.NewReader("{"), errReader{}))
	r.ContentLength = -1
	_, err := readBody(httptest.NewRecorder(), r, 10)
	e, ok := AsError(err)
	require.True(t, ok)
	assert.Equal(t, CodeInvalidArguments, e.Code)
	assert.Equal(t, "could not read request body", e.Message)
}

type errReader struct{}

func (errReader) Read([]byte) (int, error) { return 0, errors.New("connection reset") }

func TestReadBodyLeavesTheBodyToReadAgain(t *testing.T) {
	r := httptest.NewRequest(http.MethodPost, "/", strings.NewReader(`{"a":1}`))
	got, err := readBody(httptest.NewRecorder(), r, 100)
	require.NoError(t, err)
	assert.Equal(t, `{"a":1}`, string(got))
	again, err := io.ReadAll(r.Body)
	require.NoError(t, err)
	assert.Equal(t, `{"a":1}`, string(again))
	require.NoError(t, r.Body.Close())
	_, isWriterTo := r.Body.(io.WriterTo)
	assert.True(t, isWriterTo, "io.Copy from the body is one write, as from io.NopCloser over a bytes.Reader")
}
