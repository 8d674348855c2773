# Scenario workspace for test/integration/drift-scenarios.test.ts.
terraform {
  required_providers {
    aws = { source = "hashicorp/aws", version = "~> 5.100" }
  }
  backend "s3" {
    use_lockfile = true
  }
}

provider "aws" {
  region = "eu-west-1"
}

variable "db_password" {
  type      = string
  sensitive = true
}

resource "aws_s3_bucket" "data" {
  bucket = "scenario-data"
  tags = {
    Owner = "payments"
    Team  = "ledger"
  }
}

resource "aws_s3_bucket_versioning" "data" {
  bucket = aws_s3_bucket.data.id
  versioning_configuration {
    status = "Enabled"
  }
}

# Issue 10: Terraform reports drift of ignored attributes in a refresh-only plan anyway; the scan
# reads this lifecycle block from the source. The test renames it with a moved block, too.
resource "aws_s3_bucket" "archive" {
  bucket = "scenario-archive"
  tags = {
    Owner = "payments"
    Team  = "ledger"
  }
  lifecycle {
    ignore_changes = [tags["Owner"]]
  }
}

resource "aws_s3_bucket" "logs" {
  bucket = "scenario-logs"
}

resource "aws_security_group" "db" {
  name        = "scenario-db"
  description = "database"
  ingress {
    from_port   = 5432
    to_port     = 5432
    protocol    = "tcp"
    cidr_blocks = ["10.0.0.0/16"]
  }
}

resource "aws_ssm_parameter" "db_password" {
  name  = "/scenario/db-password"
  type  = "SecureString"
  value = var.db_password
}

resource "aws_iam_role" "app" {
  name                 = "scenario-app"
  max_session_duration = 3600
  assume_role_policy = jsonencode({
    Version   = "2012-10-17"
    Statement = [{ Effect = "Allow", Principal = { Service = "ec2.amazonaws.com" }, Action = "sts:AssumeRole" }]
  })
}

resource "aws_iam_role_policy" "app" {
  name = "read-data"
  role = aws_iam_role.app.name
  policy = jsonencode({
    Version   = "2012-10-17"
    Statement = [{ Effect = "Allow", Action = ["s3:GetObject"], Resource = "${aws_s3_bucket.data.arn}/*" }]
  })
}

# A bucket policy written with one-element lists, as configurations do: AWS hands a changed policy
# back re-serialised (singletons unwrapped), and the test prepends a public statement out of band.
resource "aws_s3_bucket" "shared" {
  bucket = "scenario-shared"
}

resource "aws_s3_bucket_policy" "shared" {
  bucket = aws_s3_bucket.shared.id
  policy = jsonencode({
    Version = "2012-10-17"
    Statement = [{
      Sid       = "Reader"
      Effect    = "Allow"
      Principal = { AWS = ["arn:aws:iam::123456789012:role/reader"] }
      Action    = ["s3:GetObject"]
      Resource  = ["${aws_s3_bucket.shared.arn}/*"]
    }]
  })
}

# A group whose rules are their own resources: after apply, the group lists the companion's rule
# (noise); the test then adds one by hand, which is drift.
resource "aws_security_group" "web" {
  name        = "scenario-web"
  description = "web"
}

resource "aws_vpc_security_group_ingress_rule" "web_https" {
  security_group_id = aws_security_group.web.id
  cidr_ipv4         = "10.0.0.0/8"
  from_port         = 443
  to_port           = 443
  ip_protocol       = "tcp"
}

# An assertion the team wrote about the live role: a refresh-only plan evaluates it against what AWS
# reports, and Terraform only warns when it fails (drift.check-failed).
check "app_session_duration" {
  assert {
    condition     = aws_iam_role.app.max_session_duration == 3600
    error_message = "scenario-app allows sessions of ${aws_iam_role.app.max_session_duration} seconds, not 3600"
  }
}
