package http_test

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"math/rand/v2"
	"net"
	"net/http"
	"path/filepath"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/mnemo-dev/mnemo/embed/builtin"
	mhttp "github.com/mnemo-dev/mnemo/http"
	"github.com/mnemo-dev/mnemo/service"
	"github.com/mnemo-dev/mnemo/sqlite"
)

// BenchmarkMessagesHTTP is conversation ingest measured from outside:
// agents posting their turns to POST /v1/messages over loopback HTTP, in
// the default configuration (the built-in embedder, vectors made before
// the answer, a fresh SQLite store with synchronous FULL, so that every
// 2xx is durable: OPS-10). Each of four agents posts one session's turns
// in order, one turn a request (an agent's hook after every reply) or 15
// (a transcript captured in batches). It reports turns acknowledged per
// second, turns with their vectors per second, and the process's CPU time
// per 1,000 turns, client included. The async runs acknowledge each turn
// before its vector (embedding.mode async) and wait for the worker at the
// end, so that both make every vector.
//
//	go test -run '^$' -bench MessagesHTTP -benchtime 200x ./http
func BenchmarkMessagesHTTP(b *testing.B) {
	for _, bc := range []struct {
		batch int
		async bool
	}{{1, false}, {15, false}, {1, true}, {15, true}} {
		batch := bc.batch
		name := fmt.Sprintf("turns=%d", batch)
		if bc.async {
			name += "/async"
		}
		b.Run(name, func(b *testing.B) {
			db, err := sqlite.Open(context.Background(), filepath.Join(b.TempDir(), "mnemo.db"), sqlite.Options{})
			if err != nil {
				b.Fatal(err)
			}
			svc := service.New(db, service.Options{Embedder: builtin.New(), AsyncEmbedding: bc.async})
			if err := svc.Init(context.Background()); err != nil {
				b.Fatal(err)
			}
			srv := mhttp.NewServer(svc, mhttp.Options{})
			ln, err := net.Listen("tcp", "127.0.0.1:0")
			if err != nil {
				b.Fatal(err)
			}
			go srv.Serve(ln)
			b.Cleanup(func() {
				ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
				defer cancel()
				srv.Shutdown(ctx)
				svc.Close()
			})
			url := "http://" + ln.Addr().String() + "/v1/messages"
			const agents = 4
			// Each agent keeps its connection, as an agent's client does.
			tr := http.DefaultTransport.(*http.Transport).Clone()
			tr.MaxIdleConnsPerHost = agents
			client := &http.Client{Timeout: 5 * time.Minute, Transport: tr}
			post := func(body []byte) error {
				resp, err := client.Post(url, "application/json", bytes.NewReader(body))
				if err != nil {
					return err
				}
				// Read to the end, or the connection is not reused.
				io.Copy(io.Discard, resp.Body)
				resp.Body.Close()
				if resp.StatusCode != http.StatusCreated {
					return fmt.Errorf("status %d", resp.StatusCode)
				}
				return nil
			}
			// The models loaded and the store's first write made before
			// the clock starts.
			if err := post(messagesBody("warm", "s0", newChat(0).turns(batch))); err != nil {
				b.Fatal(err)
			}
			var (
				next atomic.Int64
				wg   sync.WaitGroup
			)
			b.ResetTimer()
			start, c0 := time.Now(), cpuTime()
			for a := range agents {
				wg.Go(func() {
					chat := newChat(uint64(a) + 1)
					id := fmt.Sprintf("agent-%d", a)
					for next.Add(1) <= int64(b.N) {
						if err := post(messagesBody(id, "s1", chat.turns(batch))); err != nil {
							b.Error(err)
							return
						}
					}
				})
			}
			wg.Wait()
			acked := time.Since(start)
			if bc.async {
				// Every vector made, as the sync runs make them, so that
				// the two cost the same work.
				if err := svc.Memories.WaitEmbedded(context.Background()); err != nil {
					b.Fatal(err)
				}
			}
			turns := float64(b.N * batch)
			b.ReportMetric(turns/acked.Seconds(), "acked-turns/s")
			b.ReportMetric(turns/time.Since(start).Seconds(), "turns/s")
			if cpu := cpuTime() - c0; cpu > 0 {
				b.ReportMetric(cpu.Seconds()*1000/turns*1000, "cpu-ms/1k-turns")
			}
		})
	}
}

func messagesBody(agent, session string, msgs []map[string]string) []byte {
	buf, _ := json.Marshal(map[string]any{"agent_id": agent, "session_id": session, "messages": msgs})
	return buf
}

// chat makes the turns of a two-person conversation: everyday English
// with the names, places and times real chats hold, so that the time and
// entity analysis and both embedders do the work they do on real turns.
type chat struct {
	rng     *rand.Rand
	speaker int
}

func newChat(seed uint64) *chat { return &chat{rng: rand.New(rand.NewPCG(seed, 36))} }

var (
	chatSpeakers = []string{"Caroline", "Melanie"}
	chatNames    = []string{"Leo", "Ana", "my sister", "Grandma", "Priya", "Tom", "my boss", "the kids"}
	chatPlaces   = []string{"the lake", "Lisbon", "the climbing gym", "the farmers market", "Tokyo", "the library", "her studio", "the beach"}
	chatTimes    = []string{"last Saturday", "yesterday", "two weeks ago", "on 12 May 2023", "this morning", "last summer", "next Friday", "in March"}
	chatThings   = []string{"a pottery class", "the marathon", "a new job", "the adoption papers", "a painting", "her guitar lessons", "the camping trip", "a book club"}
	chatTurns    = []string{
		"Hey! How have you been? I went to %[2]s with %[1]s %[3]s and it was amazing.",
		"That sounds lovely. Did %[1]s enjoy it too? I've been meaning to visit %[2]s for ages.",
		"Honestly I'm a bit nervous about %[4]s, it starts %[3]s and I haven't prepared much.",
		"You'll do great, you always say that and then it turns out fine. What made you sign up for %[4]s?",
		"%[1]s talked me into it %[3]s. We were sitting at %[2]s and it just came up.",
		"I love that. I finally finished %[4]s %[3]s, it took me almost three months!",
		"Wow, congratulations! Can I see a picture? I'd love to show %[1]s.",
		"Sure, I'll send it later. By the way, are you still thinking about moving to %[2]s?",
		"Yes, we talked about it again %[3]s. %[1]s thinks it would be good for the family.",
		"It's a big step but I think you're ready. Remember how scared you were before %[4]s?",
		"Ha, true. Anyway, what are your plans for the weekend?",
		"Probably just relaxing. Maybe a walk to %[2]s if the weather holds. %[1]s might come along.",
		"Thanks for listening, it really helps to talk about this stuff.",
		"Of course, that's what friends are for. Let's catch up properly %[3]s.",
		"I read a great book about mindfulness %[3]s; it reminded me of what %[1]s told us at %[2]s.",
		"Did you ever hear back about %[4]s? You mentioned it %[3]s.",
	}
)

// turns returns the next n turns, the speakers taking turns.
func (c *chat) turns(n int) []map[string]string {
	out := make([]map[string]string, n)
	for i := range out {
		pick := func(s []string) string { return s[c.rng.IntN(len(s))] }
		text := fmt.Sprintf(pick(chatTurns), pick(chatNames), pick(chatPlaces), pick(chatTimes), pick(chatThings))
		role := "user"
		if c.speaker == 1 {
			role = "assistant"
		}
		out[i] = map[string]string{"role": role, "name": chatSpeakers[c.speaker], "content": strings.TrimSpace(text)}
		c.speaker = 1 - c.speaker
	}
	return out
}
