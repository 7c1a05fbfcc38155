package temporal

import (
	"strings"
	"time"
	"unicode/utf8"
)

// lunarFestival is a festival of the Chinese calendar, a column of
// lunarDays (lunar_table.go, made by scripts/lunar): the lunar ones and
// 清明, a solar term. Their days move across the Gregorian year, so they
// are read from the table, for the years it holds (REC-32).
type lunarFestival int

const (
	lunarEve     lunarFestival = iota // 除夕, the eve of the new year
	lunarNewYear                      // 春节's first day, 正月初一
	lanternFest                       // 元宵节, 1/15
	qingming                          // 清明
	dragonBoat                        // 端午节, 5/5
	qixi                              // 七夕, 7/7
	midAutumn                         // 中秋节, 8/15
	doubleNinth                       // 重阳节, 9/9
	laba                              // 腊八节, 12/8, before the year's 春节
	lunarFestivals
)

// springFestivalDays is how long 春节 lasts as people name it: the week
// of the holiday, from 除夕 (as 国庆 is its golden week).
const springFestivalDays = 7

// lunarW is festival f of Gregorian year y, days long from its day; not
// valid outside the table's years.
func lunarW(f lunarFestival, y, days int, loc *time.Location) Window {
	if y < lunarFirstYear || y > lunarLastYear {
		return Window{}
	}
	s := time.Date(y, 1, 1+int(lunarDays[y-lunarFirstYear][f]), 0, 0, 0, 0, loc)
	return Window{s, s.AddDate(0, 0, days)}
}

// zhLunarNames are the Chinese names of lunarW's festivals. 元宵, 重阳 and
// 腊八 alone are a food, a name and a porridge as often: with 节 only.
const zhLunarNames = `春节|过年|除夕|大年三十|大年夜|大年初一|正月初一|元宵节|清明节|清明|端午节|端午|七夕节|七夕|中秋节|中秋|重阳节|腊八节`

// zhLunarW is the festival named in Gregorian year y, and whether name is
// one of zhLunarNames.
func zhLunarW(name string, y int, loc *time.Location) (Window, bool) {
	switch name {
	case "春节", "过年":
		return lunarW(lunarEve, y, springFestivalDays, loc), true
	case "除夕", "大年三十", "大年夜":
		return lunarW(lunarEve, y, 1, loc), true
	case "大年初一", "正月初一":
		return lunarW(lunarNewYear, y, 1, loc), true
	case "元宵节":
		return lunarW(lanternFest, y, 1, loc), true
	case "清明节", "清明":
		return lunarW(qingming, y, 1, loc), true
	case "端午节", "端午":
		return lunarW(dragonBoat, y, 1, loc), true
	case "七夕节", "七夕":
		return lunarW(qixi, y, 1, loc), true
	case "中秋节", "中秋":
		return lunarW(midAutumn, y, 1, loc), true
	case "重阳节":
		return lunarW(doubleNinth, y, 1, loc), true
	case "腊八节":
		return lunarW(laba, y, 1, loc), true
	}
	return Window{}, false
}

// enLunarW is the festival of an English name in holidayNames (lower
// case, apostrophes dropped), and whether it is one.
func enLunarW(n string, y int, loc *time.Location) (Window, bool) {
	switch n {
	case "chinese new year", "lunar new year", "spring festival":
		return lunarW(lunarEve, y, springFestivalDays, loc), true
	case "chinese new years eve", "lunar new years eve":
		return lunarW(lunarEve, y, 1, loc), true
	case "lantern festival":
		return lunarW(lanternFest, y, 1, loc), true
	case "qingming", "qingming festival", "tomb sweeping day", "tomb-sweeping day":
		return lunarW(qingming, y, 1, loc), true
	case "dragon boat festival":
		return lunarW(dragonBoat, y, 1, loc), true
	case "qixi", "qixi festival":
		return lunarW(qixi, y, 1, loc), true
	case "mid-autumn festival", "mid autumn festival", "moon festival", "mooncake festival":
		return lunarW(midAutumn, y, 1, loc), true
	case "double ninth festival":
		return lunarW(doubleNinth, y, 1, loc), true
	}
	return Window{}, false
}

// guardLunar reports whether the festival name at loc in text is part of
// another word: 过年轻人 (to live as the young do), 清明上河图 (a
// painting).
func guardLunar(name, text string, loc []int) bool {
	next, _ := utf8.DecodeRuneInString(text[loc[1]:])
	switch name {
	case "过年":
		return strings.ContainsRune("轻纪龄限头底末检度", next)
	case "清明":
		return next == '上'
	}
	return false
}
