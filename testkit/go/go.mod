module github.com/cnxsim/cnxsim/testkit/go

go 1.19
