module github.com/mnemo-dev/mnemo/scripts/lunar

go 1.26.8

require github.com/6tail/lunar-go v1.4.7
