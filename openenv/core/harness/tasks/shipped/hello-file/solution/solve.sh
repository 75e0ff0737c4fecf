printf 'Hello, Harbor!\n' > hello.txt
