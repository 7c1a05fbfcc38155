package temporal

import (
	"testing"
	"time"
)

// TestLunarDays checks the generated table against festival days that
// public calendars give.
func TestLunarDays(t *testing.T) {
	for _, c := range []struct {
		f    lunarFestival
		y    int
		want string
	}{
		{lunarNewYear, 1950, "1950-02-17"},
		{lunarNewYear, 2000, "2000-02-05"},
		{lunarNewYear, 2020, "2020-01-25"},
		{lunarNewYear, 2024, "2024-02-10"},
		{lunarNewYear, 2025, "2025-01-29"},
		{lunarEve, 2025, "2025-01-28"},
		{lanternFest, 2024, "2024-02-24"},
		{qingming, 2024, "2024-04-04"},
		{dragonBoat, 2025, "2025-05-31"},
		{qixi, 2024, "2024-08-10"},
		{midAutumn, 2024, "2024-09-17"},
		{midAutumn, 2025, "2025-10-06"},
		{doubleNinth, 2024, "2024-10-11"},
		{laba, 2025, "2025-01-07"},
		{laba, 2023, "2022-12-30"},
	} {
		w := lunarW(c.f, c.y, 1, time.UTC)
		if got := w.Start.Format(time.DateOnly); got != c.want {
			t.Errorf("festival %d of %d: %s, want %s", c.f, c.y, got, c.want)
		}
	}
	for _, y := range []int{lunarFirstYear - 1, lunarLastYear + 1, 1, 9999} {
		if w := lunarW(midAutumn, y, 1, time.UTC); w.Valid() {
			t.Errorf("year %d, outside the table: %v", y, w)
		}
	}
	// Every year's festivals come in their order, each on a day of the
	// season it belongs to.
	for y := lunarFirstYear; y <= lunarLastYear; y++ {
		d := lunarDays[y-lunarFirstYear]
		for f := lunarNewYear; f < laba; f++ {
			if d[f] <= d[f-1] {
				t.Errorf("%d: festival %d on day %d, not after %d's day %d", y, f, d[f], f-1, d[f-1])
			}
		}
		if ny := lunarW(lunarNewYear, y, 1, time.UTC).Start; ny.Before(time.Date(y, 1, 21, 0, 0, 0, 0, time.UTC)) || ny.After(time.Date(y, 2, 20, 0, 0, 0, 0, time.UTC)) {
			t.Errorf("%d: new year on %s", y, ny.Format(time.DateOnly))
		}
		if l := d[laba]; l >= d[lunarEve] || l < -3 {
			t.Errorf("%d: 腊八 on day %d", y, l)
		}
	}
}
