package redis

import (
	"context"
	"errors"
	"sync"

	goredis "github.com/redis/go-redis/v9"
)

// hub multiplexes a Store's subscriptions over one Redis pub/sub
// connection, opened on the first subscription. One goroutine reads the
// connection and calls the subscribers of each message, one at a time, in
// the order Redis delivered the messages.
type hub struct {
	s  *Store
	mu sync.Mutex
	ps *goredis.PubSub // nil until the first subscription
	// subs holds the subscribers of each Redis channel; confirmed the
	// channels Redis confirmed subscribing to, and waiting what waits for
	// that confirmation.
	subs      map[string][]*hubSub
	confirmed map[string]bool
	waiting   map[string][]chan struct{}
	closed    bool
}

type hubSub struct {
	fn func([]byte)
	mu sync.Mutex // held while fn runs, so stop waits for it
	on bool       // guarded by mu
}

// errClosed is the error of a subscription to a closed Store.
var errClosed = errors.New("redis: the store is closed")

func newHub(s *Store) *hub {
	return &hub{s: s, subs: map[string][]*hubSub{}, confirmed: map[string]bool{}, waiting: map[string][]chan struct{}{}}
}

// subscribe adds fn to channel, and returns once Redis has confirmed the
// subscription, so that whatever is published after it returns reaches fn.
func (h *hub) subscribe(ctx context.Context, channel string, fn func([]byte)) (func(), error) {
	sub := &hubSub{fn: fn, on: true}
	h.mu.Lock()
	if h.closed {
		h.mu.Unlock()
		return nil, errClosed
	}
	if h.ps == nil {
		h.ps = h.s.rdb.Subscribe(context.Background())
		go h.run(h.ps.ChannelWithSubscriptions())
	}
	ps := h.ps
	first := len(h.subs[channel]) == 0
	h.subs[channel] = append(h.subs[channel], sub)
	var confirmed chan struct{}
	if !h.confirmed[channel] {
		confirmed = make(chan struct{})
		h.waiting[channel] = append(h.waiting[channel], confirmed)
	}
	h.mu.Unlock()
	stop := func() { h.unsubscribe(channel, sub) }
	if first {
		if err := ps.Subscribe(ctx, channel); err != nil {
			stop()
			return nil, err
		}
	}
	if confirmed != nil {
		select {
		case <-confirmed:
		case <-ctx.Done():
			stop()
			return nil, ctx.Err()
		}
	}
	var once sync.Once
	return func() { once.Do(stop) }, nil
}

// unsubscribe removes sub, and the channel's Redis subscription with its
// last subscriber; once it returns, sub's function is not called again.
func (h *hub) unsubscribe(channel string, sub *hubSub) {
	h.mu.Lock()
	list := h.subs[channel]
	for i, x := range list {
		if x == sub {
			list = append(list[:i:i], list[i+1:]...)
			break
		}
	}
	last := len(list) == 0
	if last {
		delete(h.subs, channel)
		delete(h.confirmed, channel)
	} else {
		h.subs[channel] = list
	}
	ps, closed := h.ps, h.closed
	h.mu.Unlock()
	if last && ps != nil && !closed {
		_ = ps.Unsubscribe(context.Background(), channel)
	}
	sub.mu.Lock()
	sub.on = false
	sub.mu.Unlock()
}

// run reads the connection until the hub closes.
func (h *hub) run(ch <-chan any) {
	for msg := range ch {
		switch m := msg.(type) {
		case *goredis.Subscription:
			if m.Kind != "subscribe" {
				continue
			}
			h.mu.Lock()
			if len(h.subs[m.Channel]) > 0 {
				h.confirmed[m.Channel] = true
			}
			for _, w := range h.waiting[m.Channel] {
				close(w)
			}
			delete(h.waiting, m.Channel)
			h.mu.Unlock()
		case *goredis.Message:
			h.mu.Lock()
			list := h.subs[m.Channel]
			h.mu.Unlock()
			payload := []byte(m.Payload)
			for _, sub := range list {
				sub.mu.Lock()
				if sub.on {
					sub.fn(payload)
				}
				sub.mu.Unlock()
			}
		}
	}
}

// close ends every subscription.
func (h *hub) close() {
	h.mu.Lock()
	h.closed = true
	ps := h.ps
	h.mu.Unlock()
	if ps != nil {
		_ = ps.Close()
	}
}
