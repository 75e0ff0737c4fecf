#!/bin/bash
# Print the number of words in the file "$1".
wc -l < "$1"
