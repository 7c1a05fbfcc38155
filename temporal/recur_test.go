package temporal

import (
	"testing"
	"time"
)

// TestRecurrence: a recurring expression, in English or Chinese, is read as
// its rule, not as one date (REC-30), and its occurrences are the days it
// names.
func TestRecurrence(t *testing.T) {
	t.Parallel()
	ref := time.Date(2023, 5, 10, 12, 0, 0, 0, time.UTC) // a Wednesday
	day := func(m, d int) time.Time { return time.Date(2023, time.Month(m), d, 0, 0, 0, 0, time.UTC) }
	at := func(m, d, h int) time.Time { return time.Date(2023, time.Month(m), d, h, 0, 0, 0, time.UTC) }
	for _, tt := range []struct {
		text, expr, rule string
		first            Window
		next             Window // the occurrence after first
	}{
		{"I go hiking every Sunday morning.", "every Sunday morning", "FREQ=WEEKLY;BYDAY=SU;BYHOUR=6,7,8,9,10,11", Window{at(5, 7, 6), at(5, 7, 12)}, Window{at(5, 14, 6), at(5, 14, 12)}},
		{"Book club is the first Monday of each month", "the first Monday of each month", "FREQ=MONTHLY;BYDAY=1MO", Window{day(5, 1), day(5, 2)}, Window{day(6, 5), day(6, 6)}},
		{"We call mum on Sundays", "on Sundays", "FREQ=WEEKLY;BYDAY=SU", Window{day(5, 7), day(5, 8)}, Window{day(5, 14), day(5, 15)}},
		{"Rent is paid each month", "each month", "FREQ=MONTHLY", Window{day(5, 1), day(6, 1)}, Window{day(6, 1), day(7, 1)}},
		{"The cleaner comes every two weeks", "every two weeks", "FREQ=WEEKLY;INTERVAL=2", Window{day(5, 8), day(5, 15)}, Window{day(5, 22), day(5, 29)}},
		{"Team sync every Monday and Thursday", "every Monday and Thursday", "FREQ=WEEKLY;BYDAY=MO,TH", Window{day(5, 8), day(5, 9)}, Window{day(5, 11), day(5, 12)}},
		{"She runs every other Saturday", "every other Saturday", "FREQ=WEEKLY;INTERVAL=2;BYDAY=SA", Window{day(5, 6), day(5, 7)}, Window{day(5, 20), day(5, 21)}},
		{"Standup happens daily", "daily", "FREQ=DAILY", Window{day(5, 10), day(5, 11)}, Window{day(5, 11), day(5, 12)}},
		{"Payday is on the 15th of every month", "on the 15th of every month", "FREQ=MONTHLY;BYMONTHDAY=15", Window{day(4, 15), day(4, 16)}, Window{day(5, 15), day(5, 16)}},
		{"我每周日上午去爬山", "每周日上午", "FREQ=WEEKLY;BYDAY=SU;BYHOUR=6,7,8,9,10,11", Window{at(5, 7, 6), at(5, 7, 12)}, Window{at(5, 14, 6), at(5, 14, 12)}},
		{"读书会在每个月的第一个周一", "每个月的第一个周一", "FREQ=MONTHLY;BYDAY=1MO", Window{day(5, 1), day(5, 2)}, Window{day(6, 5), day(6, 6)}},
		{"每两周打扫一次", "每两周", "FREQ=WEEKLY;INTERVAL=2", Window{day(5, 8), day(5, 15)}, Window{day(5, 22), day(5, 29)}},
		{"每个月交房租", "每个月", "FREQ=MONTHLY", Window{day(5, 1), day(6, 1)}, Window{day(6, 1), day(7, 1)}},
		{"每月最后一个星期五聚餐", "每月最后一个星期五", "FREQ=MONTHLY;BYDAY=-1FR", Window{day(4, 28), day(4, 29)}, Window{day(5, 26), day(5, 27)}},
	} {
		t.Run(tt.text, func(t *testing.T) {
			e, ok := ExtractRecurrence(tt.text, ref)
			if !ok {
				t.Fatalf("no recurrence found")
			}
			if e.Text != tt.expr || e.Recurrence.Rule != tt.rule || e.First != tt.first {
				t.Fatalf("got %q %s first %v, want %q %s first %v", e.Text, e.Recurrence.Rule, e.First, tt.expr, tt.rule, tt.first)
			}
			if next, ok := e.Recurrence.Next(e.First.End); !ok || next != tt.next {
				t.Fatalf("next occurrence %v, want %v", next, tt.next)
			}
			if !e.Recurrence.Overlaps(tt.next) || e.Recurrence.Overlaps(Window{tt.first.End, tt.next.Start}) {
				t.Fatalf("Overlaps: an occurrence must overlap, the gap between two must not")
			}
		})
	}
	for _, text := range []string{"I went hiking last Sunday", "Sunday morning was cold", "每周三次", "each of them", "every one of us"} {
		if e, ok := ExtractRecurrence(text, ref); ok {
			t.Errorf("%q: found %q (%s), want none", text, e.Text, e.Recurrence.Rule)
		}
	}
}
