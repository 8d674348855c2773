# Payments: a data bucket whose versioning and encryption are managed by companion resources,
# the database security group, and the database password in SSM Parameter Store.
# The same configuration runs as payments-prod and payments-staging (one state each).
terraform {
  required_version = ">= 1.5"
  required_providers {
    aws = { source = "hashicorp/aws", version = "~> 5.100" }
  }
  # Partial backend: bucket, key and region come from `terraform init -backend-config` (the registry).
  backend "s3" {
    use_lockfile = true
  }
}

provider "aws" {
  region = var.region
}

variable "region" {
  type    = string
  default = "eu-west-1"
}

variable "environment" {
  type = string
}

variable "db_password" {
  type      = string
  sensitive = true
  default   = "demo-only-not-a-real-password"
}

resource "aws_s3_bucket" "ledger" {
  bucket = "payments-ledger-${var.environment}"
  tags = {
    Owner       = "payments"
    Environment = var.environment
  }
}

resource "aws_s3_bucket_versioning" "ledger" {
  bucket = aws_s3_bucket.ledger.id
  versioning_configuration {
    status = "Enabled"
  }
}

resource "aws_s3_bucket_server_side_encryption_configuration" "ledger" {
  bucket = aws_s3_bucket.ledger.id
  rule {
    apply_server_side_encryption_by_default {
      sse_algorithm = "aws:kms"
    }
  }
}

resource "aws_security_group" "db" {
  name        = "payments-db-${var.environment}"
  description = "Payments database"
  ingress {
    description = "Postgres from the VPC"
    from_port   = 5432
    to_port     = 5432
    protocol    = "tcp"
    cidr_blocks = ["10.20.0.0/16"]
  }
}

resource "aws_ssm_parameter" "db_password" {
  name  = "/payments/${var.environment}/db-password"
  type  = "SecureString"
  value = var.db_password
}
