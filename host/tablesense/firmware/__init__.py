"""The reader boards' firmware as the host handles it: building what a board runs."""
