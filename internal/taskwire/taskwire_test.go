package taskwire_test

import (
	"net/http"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"

	"github.com/toolexec/toolexec/internal/taskwire"
)

func TestTimeIsUTCToTheMillisecond(t *testing.T) {
	at := time.Date(2026, 1, 2, 16, 4, 5, 123_456_789, time.FixedZone("CET", 3600))
	assert.Equal(t, "2026-01-02T15:04:05.123Z", taskwire.Time(at))
	assert.Equal(t, "2026-01-02T15:04:05.000Z", taskwire.Time(at.Truncate(time.Second)), "the milliseconds are always written")
}

func TestPrefer(t *testing.T) {
	for _, tc := range []struct {
		headers []string
		async   bool
		wait    time.Duration
	}{
		{nil, false, -1},
		{[]string{"respond-async"}, true, -1},
		{[]string{"RESPOND-ASYNC"}, true, -1},
		{[]string{"handling=lenient, respond-async; x=1"}, true, -1},
		{[]string{"wait=0,respond-async"}, true, 0},
		{[]string{"respond-async, wait=5"}, true, 5 * time.Second},
		{[]string{"respond-async", `Wait = "7"`}, true, 7 * time.Second},
		{[]string{"wait=10"}, false, 10 * time.Second},
		{[]string{"wait=soon, respond-async"}, true, -1},
		{[]string{"wait=-3"}, false, -1},
		{[]string{"wait=99999999999"}, false, -1},
		{[]string{"respond-asynchronously"}, false, -1},
		{[]string{"return=minimal"}, false, -1},
	} {
		h := http.Header{}
		for _, v := range tc.headers {
			h.Add("Prefer", v)
		}
		async, wait := taskwire.Prefer(h)
		assert.Equal(t, tc.async, async, "%q", tc.headers)
		assert.Equal(t, tc.wait, wait, "%q", tc.headers)
	}
}
