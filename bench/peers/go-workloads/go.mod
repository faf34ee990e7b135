module goworkloads

go 1.19
