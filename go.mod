module github.com/partmon/partmon

go 1.26
