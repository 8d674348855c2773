region = "us-east-2"
