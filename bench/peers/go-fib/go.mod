module gofib

go 1.19
